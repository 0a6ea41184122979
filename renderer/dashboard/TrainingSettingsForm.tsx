/**
 * The training settings form (Dashboard shows the key ones, Settings all of them), the same
 * component both places: each field's help with its range, the reason for the range on hover.
 * Values are checked against the contract's schema before anything is sent; errors sit under their field.
 */
import { useEffect, useState, type HTMLAttributes } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import type { TrainingConfig } from '../api/contract.js';
import { rangeText, TRAINING_RANGES } from '../../main/protocol/trainingRanges.js';
import { ErrorText } from '../ui/ErrorText.js';
import { Field } from '../ui/Field.js';
import { OutcomeText } from '../ui/OutcomeText.js';
import { METHODS, type TrainingField } from './trainingStore.js';

function formValues(config: TrainingConfig | null, fields: readonly TrainingField[]): Record<string, string> {
  if (!config) return {};
  return Object.fromEntries(fields.map((f) => [f.key, config[f.key] === null || config[f.key] === undefined ? '' : String(config[f.key])]));
}

/** The attributes <Field> gives its control, tying it to its label, help and error. */
type FieldWiring = Pick<HTMLAttributes<HTMLElement>, 'id' | 'aria-invalid' | 'aria-describedby'>;

/** One setting's control: the method as a list, every other setting as a number box. */
function SettingControl({
  field,
  value,
  onChange,
  ...wiring
}: { field: TrainingField; value: string; onChange: (v: string) => void } & FieldWiring) {
  if (field.kind === 'method')
    return (
      <select {...wiring} value={value} onChange={(e) => onChange(e.target.value)}>
        {METHODS.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
    );
  return (
    <input
      {...wiring}
      inputMode="decimal"
      value={value}
      placeholder={field.kind.endsWith('?') ? 'default' : undefined}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** The field's help with its sane range ("… · 0 to 10"). */
function helpOf(f: TrainingField): string {
  const range = TRAINING_RANGES[f.key];
  return range ? `${f.help} · ${rangeText(range)}` : f.help;
}

/** Why the range is what it is, shown on hover over the field's label and box. */
function reasonOf(f: TrainingField): string | undefined {
  const range = TRAINING_RANGES[f.key];
  return range ? `${rangeText(range)}: ${range.why}` : undefined;
}

function ApplyRow({ failed }: { failed: boolean }) {
  const { training } = useServices();
  const message = useStore(training, (s) => s.saveMessage);
  const saving = useStore(training, (s) => s.saving);
  return (
    <div className="row">
      <button type="submit" className="btn btn-primary" disabled={saving}>
        Apply settings
      </button>
      {message && <OutcomeText ok={!failed && !message.startsWith('Not')}>{message}</OutcomeText>}
    </div>
  );
}

export function TrainingSettingsForm({ fields, compact }: { fields: readonly TrainingField[]; compact?: boolean }) {
  const { training } = useServices();
  const config = useStore(training, (s) => s.config);
  const loadError = useStore(training, (s) => s.loadError);
  const errors = useStore(training, (s) => s.fieldErrors);
  const [values, setValues] = useState<Record<string, string>>({});
  useEffect(() => setValues(formValues(config, fields)), [config, fields]);

  if (loadError) return <ErrorText>{loadError}</ErrorText>;
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
          <Field key={f.key} label={f.label} help={helpOf(f)} reason={reasonOf(f)} error={errors[f.key]}>
            <SettingControl field={f} value={values[f.key] ?? ''} onChange={(v) => set(f.key, v)} />
          </Field>
        ))}
      </div>
      <ApplyRow failed={Object.keys(errors).length > 0} />
    </form>
  );
}
