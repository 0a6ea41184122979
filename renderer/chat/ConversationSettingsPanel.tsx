/**
 * The open conversation's own settings, behind a button in the bar above it: a system prompt sent
 * first with each of its requests, and the temperature. Saved as typed, like a draft.
 */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { Field } from '../ui/Field.js';
import { NO_SETTINGS, TEMPERATURE_RANGE, temperatureError } from './conversationSettings.js';

/** What the bar says while the panel is closed: "system prompt · temperature 0.7", or nothing. */
export function settingsSummary(system: string, temperature: number | null): string {
  return [system.trim() ? 'system prompt' : '', temperature !== null ? `temperature ${temperature}` : ''].filter(Boolean).join(' · ');
}

export function ConversationSettingsPanel({ conversationId }: { conversationId: string }) {
  const { chat } = useServices();
  const settings = useStore(chat, (s) => s.conversationSettings[conversationId] ?? NO_SETTINGS);
  const [temperature, setTemperature] = useState(settings.temperature === null ? '' : String(settings.temperature));
  useEffect(
    () => setTemperature(settings.temperature === null ? '' : String(settings.temperature)),
    [conversationId, settings.temperature],
  );
  const error = temperatureError(temperature);
  const save = chat.getState().setConversationSettings;
  return (
    <section id="conversation-settings" className="card conversation-settings" aria-label="Conversation settings">
      <Field label="System prompt" help="Sent first with every message of this conversation: who the model is, how it should answer.">
        <textarea rows={3} value={settings.system} onChange={(e) => save(conversationId, { system: e.target.value })} />
      </Field>
      <Field
        label="Temperature"
        help={`${TEMPERATURE_RANGE.min}–${TEMPERATURE_RANGE.max}; empty: the model's default. Lower answers more alike, higher more varied.`}
        error={error}
      >
        <input
          type="text"
          inputMode="decimal"
          value={temperature}
          onChange={(e) => {
            const text = e.target.value;
            setTemperature(text);
            if (!temperatureError(text)) save(conversationId, { temperature: text.trim() ? Number(text) : null });
          }}
        />
      </Field>
    </section>
  );
}
