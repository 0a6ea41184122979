/** Settings: model folder (validated), backend, data folder; and every training default. */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { desktop } from '../app/desktop.js';
import { useServices } from '../app/servicesContext.js';
import { TrainingSettingsForm } from '../dashboard/TrainingSettingsForm.js';
import { TRAINING_FIELDS } from '../dashboard/trainingStore.js';
import type { Settings, SettingsPatch } from '../api/contract.js';
import { CopyButton } from '../ui/CopyButton.js';
import { ErrorText } from '../ui/ErrorText.js';
import { Field } from '../ui/Field.js';
import { OutcomeText } from '../ui/OutcomeText.js';
import { BACKENDS } from './settingsStore.js';

const running = (current: Settings | null, what: string | null | undefined) => (current ? ` Running now: ${what}.` : '');

function ModelFolderField({ current, value, onChange }: { current: Settings | null; value: string; onChange: (v: string) => void }) {
  const { settings } = useServices();
  const error = useStore(settings, (s) => s.fieldErrors.model_dir);
  const shell = desktop();
  return (
    <>
      <Field
        label="Model folder"
        help={`A Hugging Face folder: config.json, *.safetensors, tokenizer.json (Llama, Mistral, Qwen2, Qwen3). Empty: the bundled model.${running(current, current?.running.model_dir)}`}
        error={error}
      >
        <input value={value} onChange={(e) => onChange(e.target.value)} spellCheck={false} placeholder="the bundled model" />
      </Field>
      {shell && (
        <button type="button" className="btn btn-small" onClick={async () => onChange((await shell.chooseModelFolder()) ?? value)}>
          Choose folder…
        </button>
      )}
    </>
  );
}

function BackendField({ current, value, onChange }: { current: Settings | null; value: string; onChange: (v: string) => void }) {
  const { settings } = useServices();
  const error = useStore(settings, (s) => s.fieldErrors.backend);
  return (
    <Field
      label="Backend"
      help={`native is the default where its addon built; wasm runs everywhere; webgpu and tensorflow need their packages installed.${running(current, current?.running.backend)}`}
      error={error}
    >
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">default</option>
        {BACKENDS.map((b) => (
          <option key={b} value={b}>
            {b}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** Where ClawLoop keeps its data: text, not a box, since it is chosen when ClawLoop starts. */
function DataFolder({ path }: { path: string | null }) {
  return (
    <div className="field" role="group" aria-labelledby="data-folder-label" aria-describedby="data-folder-help">
      <span id="data-folder-label" className="field-label">
        Data folder
      </span>
      <span className="row data-folder">
        <code>{path ?? '…'}</code>
        {path && <CopyButton text={path} label="Copy the data folder's path" />}
      </span>
      <small id="data-folder-help" className="help">
        Chosen when ClawLoop starts (--data-dir, or CLAWLOOP_HOME); not changed here.
      </small>
    </div>
  );
}

function SaveRow({ current }: { current: Settings | null }) {
  const { settings } = useServices();
  const message = useStore(settings, (s) => s.message);
  const saving = useStore(settings, (s) => s.saving);
  const formError = useStore(settings, (s) => s.fieldErrors.form);
  return (
    <>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={saving || !current}>
          Save settings
        </button>
        {message && <OutcomeText ok>{message}</OutcomeText>}
        {current?.restart_required && !message && <span className="badge badge-warn">Restart ClawLoop to use the saved settings</span>}
      </div>
      <ErrorText>{formError}</ErrorText>
    </>
  );
}

/** The model folder, the backend and the data folder; they take effect at the next start. */
function ModelSettings() {
  const { settings } = useServices();
  const current = useStore(settings, (s) => s.settings);
  const [modelDir, setModelDir] = useState('');
  const [backend, setBackend] = useState('');
  useEffect(() => {
    if (!current) return;
    setModelDir(current.model_dir ?? '');
    setBackend(current.backend ?? '');
  }, [current]);
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        // Empty means the default: the bundled model, the default backend.
        void settings.getState().save({ model_dir: modelDir.trim() || null, backend: (backend || null) as SettingsPatch['backend'] });
      }}
    >
      <ModelFolderField current={current} value={modelDir} onChange={setModelDir} />
      <BackendField current={current} value={backend} onChange={setBackend} />
      <DataFolder path={current?.data_dir ?? null} />
      <SaveRow current={current} />
    </form>
  );
}

export function SettingsScreen() {
  const { settings, training } = useServices();
  const loadError = useStore(settings, (s) => s.loadError);
  useEffect(() => {
    void settings.getState().load();
    void training.getState().load();
  }, [settings, training]);
  return (
    <div className="settings">
      <h1>Settings</h1>
      <section className="card" aria-labelledby="model-title">
        <h2 id="model-title">Model</h2>
        <ErrorText>{loadError}</ErrorText>
        <ModelSettings />
      </section>
      <section className="card" aria-labelledby="defaults-title">
        <h2 id="defaults-title">Training defaults</h2>
        <TrainingSettingsForm fields={TRAINING_FIELDS} />
      </section>
    </div>
  );
}
