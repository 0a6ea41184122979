/** Training state, step, queue and live version, with Pause training / Resume training. */
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { num } from '../ui/format.js';

export function TrainingPanel() {
  const { core, training, metrics } = useServices();
  const status = useStore(core, (s) => s.training);
  const live = useStore(core, (s) => s.liveVersion);
  const errors = useStore(core, (s) => s.errors);
  const toggling = useStore(training, (s) => s.toggling);
  const toggleError = useStore(training, (s) => s.toggleError);
  const held = useStore(metrics, (s) => s.markers.filter((m) => m.heldBack).length);
  const paused = status?.state === 'paused';
  const last = status?.last_step;

  return (
    <section className="card" aria-labelledby="training-title">
      <h2 id="training-title">Training</h2>
      {!status && <p className="muted">Waiting for the core…</p>}
      {status && (
        <dl className="stats">
          <div>
            <dt>State</dt>
            <dd>
              {status.state}
              {status.error ? ` — ${status.error}` : ''}
            </dd>
          </div>
          <div>
            <dt>Method</dt>
            <dd>{status.method}</dd>
          </div>
          <div>
            <dt>Step</dt>
            <dd>{status.step}</dd>
          </div>
          <div>
            <dt>Live version</dt>
            <dd>v{live ?? status.adapter_version}</dd>
          </div>
          <div>
            <dt>Samples waiting</dt>
            <dd>{status.queued_samples}</dd>
          </div>
          <div>
            <dt>Turns to judge</dt>
            <dd>{status.pending_turns ?? '—'}</dd>
          </div>
          {last && (
            <div className="wide">
              <dt>Last step</dt>
              <dd>
                loss {num(last.loss)}, reward {num(last.mean_reward)}, {last.step_ms === undefined ? '—' : num(last.step_ms / 1000, 2)} s
              </dd>
            </div>
          )}
          {held > 0 && (
            <div className="wide">
              <dt>Held back</dt>
              <dd>{held} checkpoint(s) failed the competence check</dd>
            </div>
          )}
        </dl>
      )}
      <button type="button" className="btn" disabled={!status || toggling} onClick={() => void training.getState().setPaused(!paused)}>
        {paused ? 'Resume training' : 'Pause training'}
      </button>
      {toggleError && (
        <p className="error-text" role="alert">
          {toggleError}
        </p>
      )}
      {errors.length > 0 && (
        <ul className="core-errors" aria-label="Errors reported by the core">
          {errors.slice(-3).map((e) => (
            <li key={e.at} className="error-text">
              {e.where}: {e.message}{' '}
              <button type="button" className="btn btn-small" onClick={() => core.getState().dismissError(e.at)}>
                Dismiss
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
