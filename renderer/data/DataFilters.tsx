/** The Data screen's filters: has feedback, trained, reward range, one session. */
import { useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { ErrorText } from '../ui/ErrorText.js';
import { Field } from '../ui/Field.js';
import { sessionName } from '../ui/sessionName.js';
import type { TriState } from './dataStore.js';

const TRI: Array<{ value: TriState; label: string }> = [
  { value: 'any', label: 'Any' },
  { value: 'yes', label: 'Yes' },
  { value: 'no', label: 'No' },
];

function TriSelect({ label, value, onChange }: { label: string; value: TriState; onChange: (v: TriState) => void }) {
  return (
    <Field label={label}>
      <select value={value} onChange={(e) => onChange(e.target.value as TriState)}>
        {TRI.map((t) => (
          <option key={t.value} value={t.value}>
            {t.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function DataFilters() {
  const { data } = useServices();
  const filter = useStore(data, (s) => s.filter);
  const sessions = useStore(data, (s) => s.sessions);
  const filterError = useStore(data, (s) => s.filterError);
  const [min, setMin] = useState(filter.minReward);
  const [max, setMax] = useState(filter.maxReward);
  const [text, setText] = useState(filter.text);
  return (
    <form
      className="filters"
      onSubmit={(e) => {
        e.preventDefault();
        data.getState().setFilter({ minReward: min, maxReward: max, text });
      }}
    >
      <Field label="Search">
        <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="words in a prompt or answer" />
      </Field>
      <TriSelect label="Has feedback" value={filter.hasFeedback} onChange={(v) => data.getState().setFilter({ hasFeedback: v })} />
      <TriSelect label="Trained" value={filter.trained} onChange={(v) => data.getState().setFilter({ trained: v })} />
      <Field label="Minimum reward">
        <input inputMode="decimal" size={6} value={min} onChange={(e) => setMin(e.target.value)} placeholder="−1" />
      </Field>
      <Field label="Maximum reward">
        <input inputMode="decimal" size={6} value={max} onChange={(e) => setMax(e.target.value)} placeholder="1" />
      </Field>
      <Field label="Session">
        <select value={filter.sessionId} onChange={(e) => data.getState().setFilter({ sessionId: e.target.value })}>
          <option value="">All sessions</option>
          {sessions.map((s) => (
            <option key={s.id} value={s.id}>
              {sessionName(s)}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" className="btn">
        Apply
      </button>
      <ErrorText>{filterError}</ErrorText>
    </form>
  );
}
