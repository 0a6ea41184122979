/** Settings: model folder (validated), backend, data folder; and every training default. */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { desktop } from '../app/desktop.js';
import { useServices } from '../app/servicesContext.js';
import { TrainingSettingsForm } from '../dashboard/TrainingSettingsForm.js';
import { TRAINING_FIELDS } from '../dashboard/trainingStore.js';
import type { SettingsPatch } from '../api/contract.js';
import { Field } from '../ui/Field.js';
import { BACKENDS } from './settingsStore.js';

export function SettingsScreen() {
  const { settings, training } = useServices();
  const current = useStore(settings, (s) => s.settings);
  const loadError = useStore(settings, (s) => s.loadError);
  const errors = useStore(settings, (s) => s.fieldErrors);
  const message = useStore(settings, (s) => s.message);
  const saving = useStore(settings, (s) => s.saving);
  const [modelDir, setModelDir] = useState('');
  const [backend, setBackend] = useState('');
  const shell = desktop();
  useEffect(() => {
    void settings.getState().load();
    void training.getState().load();
  }, [settings, training]);
  useEffect(() => {
    if (!current) return;
    setModelDir(current.model_dir ?? '');
    setBackend(current.backend ?? '');
  }, [current]);

  return (
    <div className="settings">
      <h1>Settings</h1>
      <section className="card" aria-labelledby="model-title">
        <h2 id="model-title">Model</h2>
        {loadError && (
          <p className="error-text" role="alert">
            {loadError}
          </p>
        )}
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            // Empty means the default: the bundled model, the default backend.
            void settings.getState().save({ model_dir: modelDir.trim() || null, backend: (backend || null) as SettingsPatch['backend'] });
          }}
        >
          <Field
            label="Model folder"
            help={`A Hugging Face folder: config.json, *.safetensors, tokenizer.json (Llama, Mistral, Qwen2, Qwen3). Empty: the bundled model.${current ? ` Running now: ${current.running.model_dir}.` : ''}`}
            error={errors.model_dir}
          >
            <input value={modelDir} onChange={(e) => setModelDir(e.target.value)} spellCheck={false} placeholder="the bundled model" />
          </Field>
          {shell && (
            <button type="button" className="btn btn-small" onClick={async () => setModelDir((await shell.chooseModelFolder()) ?? modelDir)}>
              Choose folder…
            </button>
          )}
          <Field
            label="Backend"
            help={`wasm runs everywhere; webgpu and tensorflow need their packages installed.${current ? ` Running now: ${current.running.backend}.` : ''}`}
            error={errors.backend}
          >
            <select value={backend} onChange={(e) => setBackend(e.target.value)}>
              <option value="">default</option>
              {BACKENDS.map((b) => (
                <option key={b} value={b}>
                  {b}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Data folder" help="Set with --data-dir or CLAWLOOP_HOME when starting ClawLoop.">
            <input value={current?.data_dir ?? ''} readOnly />
          </Field>
          <div className="row">
            <button type="submit" className="btn btn-primary" disabled={saving || !current}>
              Save settings
            </button>
            {message && (
              <span role="status" className="ok-text">
                {message}
              </span>
            )}
            {current?.restart_required && !message && <span className="badge badge-warn">Restart ClawLoop to use the saved settings</span>}
          </div>
          {errors.form && (
            <p className="error-text" role="alert">
              {errors.form}
            </p>
          )}
        </form>
      </section>
      <section className="card" aria-labelledby="defaults-title">
        <h2 id="defaults-title">Training defaults</h2>
        <TrainingSettingsForm fields={TRAINING_FIELDS} />
      </section>
    </div>
  );
}
