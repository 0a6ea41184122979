/** Training state, step, queue and live version, with Pause training / Resume training. */
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import type { TrainingSnapshot } from '../app/coreStore.js';
import { ErrorText } from '../ui/ErrorText.js';
import { num, version } from '../ui/format.js';
import { Stat } from '../ui/Stat.js';
import { stepProgress } from './stepProgress.js';

function TrainingStats({ status }: { status: TrainingSnapshot }) {
  const { core, metrics, checkpoints } = useServices();
  const live = useStore(core, (s) => s.liveVersion);
  const finishedStep = useStore(core, (s) => s.finishedStep);
  const gateOn = status.competence_gate?.on ?? false;
  // A checkpoint waiting for the gate is the newest version (reserved when saved), newer than the live one.
  const pendingCheck = useStore(checkpoints, (s) =>
    s.rows.some((r) => gateOn && r.step === status.step && !r.live && r.competence === null && r.adapter_version > (live ?? 0)),
  );
  const held = useStore(metrics, (s) => s.markers.filter((m) => m.heldBack).length);
  const last = status.last_step;
  const progress = stepProgress(status, finishedStep, pendingCheck);
  return (
    <dl className="stats">
      <Stat label="State">
        {status.state}
        {status.error ? ` — ${status.error}` : ''}
      </Stat>
      <Stat label="Method">{status.method}</Stat>
      <Stat label="Step">{progress.step}</Stat>
      <Stat label="Live version">
        {version(live)}
        {progress.liveNote && <span className="muted"> · {progress.liveNote}</span>}
      </Stat>
      <Stat label="Samples waiting">{status.queued_samples}</Stat>
      <Stat label="Turns to judge">{status.pending_turns ?? '—'}</Stat>
      {last && (
        <Stat label="Last step" wide>
          loss {num(last.loss)}, reward {num(last.mean_reward)}, {last.step_ms === undefined ? '—' : num(last.step_ms / 1000, 2)} s
        </Stat>
      )}
      {held > 0 && (
        <Stat label="Held back" wide>
          {held} checkpoint(s) failed the competence check
        </Stat>
      )}
    </dl>
  );
}

function PauseButton({ status }: { status: TrainingSnapshot | null }) {
  const { training } = useServices();
  const toggling = useStore(training, (s) => s.toggling);
  const toggleError = useStore(training, (s) => s.toggleError);
  const paused = status?.state === 'paused';
  return (
    <>
      <button type="button" className="btn" disabled={!status || toggling} onClick={() => void training.getState().setPaused(!paused)}>
        {paused ? 'Resume training' : 'Pause training'}
      </button>
      <ErrorText>{toggleError}</ErrorText>
    </>
  );
}

/** The last errors the core reported (trainer, judge, inference), each dismissable. */
function CoreErrors() {
  const { core } = useServices();
  const errors = useStore(core, (s) => s.errors);
  if (errors.length === 0) return null;
  return (
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
  );
}

export function TrainingPanel() {
  const { core } = useServices();
  const status = useStore(core, (s) => s.training);
  return (
    <section className="card" aria-labelledby="training-title">
      <h2 id="training-title">Training</h2>
      {status ? <TrainingStats status={status} /> : <p className="muted">Waiting for the core…</p>}
      <PauseButton status={status} />
      <CoreErrors />
    </section>
  );
}
