/**
 * A conversation's own settings: a system prompt sent first with every request of it, and the
 * sampling temperature (null: the core's default). Kept in storage by conversation id, like the
 * drafts, so a reload keeps them; the system prompt is also in every recorded turn.
 */
import { safeGet, type KeyValueStorage } from '../api/apiKey.js';
import type { WireMessage } from '../api/contract.js';
import type { ChatContext } from './chatStore.js';

export const CONVERSATION_SETTINGS_KEY = 'clawloop.conversationSettings';

/** The temperatures the core accepts (OpenAI's range): 0 always picks the likeliest token, 2 is very random. */
export const TEMPERATURE_RANGE = { min: 0, max: 2 } as const;

export interface ConversationSettings {
  /** Sent as the first message (role system) of every request; '' sends none. */
  system: string;
  /** The sampling temperature; null leaves it to the core. */
  temperature: number | null;
}

export const NO_SETTINGS: ConversationSettings = { system: '', temperature: null };

export function loadConversationSettings(storage: KeyValueStorage | null): Record<string, ConversationSettings> {
  try {
    const v = JSON.parse(safeGet(storage, CONVERSATION_SETTINGS_KEY) ?? '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, ConversationSettings>) : {};
  } catch {
    return {};
  }
}

/** Why a typed temperature cannot be used, in words; null when it can ('' is the core's default). */
export function temperatureError(text: string): string | null {
  if (!text.trim()) return null;
  const t = Number(text);
  if (!Number.isFinite(t) || t < TEMPERATURE_RANGE.min || t > TEMPERATURE_RANGE.max)
    return `The temperature is a number from ${TEMPERATURE_RANGE.min} to ${TEMPERATURE_RANGE.max} (0: always the likeliest word; 1: as trained); “${text}” is not.`;
  return null;
}

/** The request's messages with the conversation's system prompt first (replacing one the thread had). */
export function withSystemPrompt(settings: ConversationSettings | undefined, messages: WireMessage[]): WireMessage[] {
  const system = settings?.system.trim();
  if (!system) return messages;
  return [{ role: 'system', content: system }, ...messages.filter((m) => m.role !== 'system')];
}

export interface ConversationSettingsActions {
  setConversationSettings(id: string, patch: Partial<ConversationSettings>): void;
}

export function conversationSettingsActions(
  c: Pick<ChatContext, 'set' | 'get'>,
  storage: KeyValueStorage | null,
): ConversationSettingsActions {
  return {
    setConversationSettings(id, patch) {
      const all = { ...c.get().conversationSettings, [id]: { ...NO_SETTINGS, ...c.get().conversationSettings[id], ...patch } };
      c.set({ conversationSettings: all });
      try {
        storage?.setItem(CONVERSATION_SETTINGS_KEY, JSON.stringify(all));
      } catch {
        // storage full or blocked: the settings stay for this page
      }
    },
  };
}
