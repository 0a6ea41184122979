/**
 * The learning settings form (Dashboard shows the key ones, Settings all of them). Values are
 * checked against the contract's schema before anything is sent; errors sit under their field.
 */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import type { TrainingConfig } from '../api/contract.js';
import { Field } from '../ui/Field.js';
import { METHODS, type TrainingField } from './trainingStore.js';

function formValues(config: TrainingConfig | null, fields: readonly TrainingField[]): Record<string, string> {
  if (!config) return {};
  return Object.fromEntries(fields.map((f) => [f.key, config[f.key] === null || config[f.key] === undefined ? '' : String(config[f.key])]));
}

export function TrainingSettingsForm({ fields, compact }: { fields: readonly TrainingField[]; compact?: boolean }) {
  const { training } = useServices();
  const config = useStore(training, (s) => s.config);
  const loadError = useStore(training, (s) => s.loadError);
  const errors = useStore(training, (s) => s.fieldErrors);
  const message = useStore(training, (s) => s.saveMessage);
  const saving = useStore(training, (s) => s.saving);
  const [values, setValues] = useState<Record<string, string>>({});
  useEffect(() => setValues(formValues(config, fields)), [config, fields]);

  if (loadError)
    return (
      <p className="error-text" role="alert">
        {loadError}
      </p>
    );
  if (!config) return <p className="muted">Loading the settings…</p>;
  const set = (k: string, v: string) => setValues((o) => ({ ...o, [k]: v }));

  return (
    <form
      className={compact ? 'settings-form settings-compact' : 'settings-form'}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void training.getState().save(values, fields);
      }}
    >
      <div className="settings-grid">
        {fields.map((f) => (
          <Field key={f.key} label={f.label} help={compact ? undefined : f.help} error={errors[f.key]}>
            {f.kind === 'method' ? (
              <select value={values[f.key] ?? ''} onChange={(e) => set(f.key, e.target.value)}>
                {METHODS.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            ) : (
              <input
                inputMode="decimal"
                value={values[f.key] ?? ''}
                placeholder={f.kind.endsWith('?') ? 'default' : undefined}
                onChange={(e) => set(f.key, e.target.value)}
              />
            )}
          </Field>
        ))}
      </div>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          Apply settings
        </button>
        {message && (
          <span className={Object.keys(errors).length || message.startsWith('Not') ? 'error-text' : 'ok-text'} role="status">
            {message}
          </span>
        )}
      </div>
    </form>
  );
}
