/**
 * Messages sent while the core was not answering: kept per conversation (in storage, like drafts)
 * until an answer to them arrives, and shown at the end of their thread with a failed answer whose
 * Regenerate sends them, also after the core came back and the thread was reloaded from it, or
 * after the page was reloaded.
 */
import { safeGet, type KeyValueStorage } from '../api/apiKey.js';
import { lastUserIndex, newAnswer, titleFrom, type ChatItem } from './thread.js';
import type { ChatContext, ConversationSummary } from './chatStore.js';

export const UNSENT_KEY = 'clawloop.unsent';

/** What the failed answer under a kept message says. */
export const UNSENT_TEXT =
  'Not answered: the core was not answering when this was sent. Your message is kept; use Regenerate to send it again.';

export function loadUnsent(storage: KeyValueStorage | null): Record<string, string> {
  try {
    const v = JSON.parse(safeGet(storage, UNSENT_KEY) ?? '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function save({ set, deps }: ChatContext, unsent: Record<string, string>): void {
  set({ unsent });
  try {
    deps.storage?.setItem(UNSENT_KEY, JSON.stringify(unsent));
  } catch {
    // storage full or blocked: the message stays in memory
  }
}

/** Keeps `text` as the unanswered message of `conv`. */
export function keepUnsent(c: ChatContext, conv: string, text: string): void {
  save(c, { ...c.get().unsent, [conv]: text });
}

/** An answer to `conv`'s kept message arrived (or the core had recorded it after all). */
export function forgetUnsent(c: ChatContext, conv: string): void {
  if (!(conv in c.get().unsent)) return;
  const next = { ...c.get().unsent };
  delete next[conv];
  save(c, next);
}

/**
 * A thread with `conv`'s kept message at its end, followed by a failed answer (whose Regenerate
 * sends it). When the thread already ends with that message answered, the core got it after all:
 * nothing is added and the message is forgotten.
 */
export function withUnsent(c: ChatContext, conv: string, items: ChatItem[]): ChatItem[] {
  const text = c.get().unsent[conv];
  if (text === undefined) return items;
  const u = lastUserIndex(items);
  if (u >= 0 && items[u].content === text && items.length > u + 1) {
    const answer = items[u + 1];
    if (answer.kind === 'answer' && !answer.error) {
      forgetUnsent(c, conv);
      return items;
    }
  }
  if (u >= 0 && items[u].content === text && u === items.length - 2) return items; // already shown
  const failed = { ...newAnswer(), streaming: false, finishReason: 'error', error: UNSENT_TEXT };
  return [...items, { kind: 'user', key: `unsent-${conv}`, role: 'user', content: text }, failed];
}

/** Conversations the core does not know yet whose first message is kept: listed as local, with that message. */
export function unsentConversations(unsent: Record<string, string>, known: Set<string>): ConversationSummary[] {
  return Object.entries(unsent)
    .filter(([id]) => !known.has(id))
    .map(([id, text]) => ({ id, title: null, preview: titleFrom(text), created_at: Date.now(), last_seen_at: null, local: true }));
}
