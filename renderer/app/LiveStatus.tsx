/** The header's live adapter version ("Live: vN") and the training state next to it (unknown while the core is away). */
import { useStore } from 'zustand';
import type { TrainingState } from '../api/contract.js';
import { useServices } from './servicesContext.js';
import { trainingBadgeText } from './trainingBadge.js';

export function LiveStatus() {
  const { core } = useServices();
  const live = useStore(core, (s) => s.liveVersion);
  const state: TrainingState | null = useStore(core, (s) => s.training?.state ?? null);
  const queued = useStore(core, (s) => s.training?.queued_samples ?? 0);
  const away = useStore(core, (s) => s.reachability === 'down');
  const info = useStore(core, (s) => s.info);
  const bad = state === 'error';
  return (
    <>
      {info && (
        <span
          className="muted model-name"
          title={`The model served: ${info.model.architecture}, ${info.model.parameters.toLocaleString()} parameters, ${info.model.context_length.toLocaleString()}-token context, on ${info.model.backend}`}
        >
          {info.served_model_name}
        </span>
      )}
      {/* During an outage the last state seen is stale: "Training" would claim work nobody is doing. */}
      {away && (
        <span className="badge badge-warn" title="Training state">
          Core not reachable
        </span>
      )}
      {state && !away && (
        <span className={`badge${bad ? ' badge-error' : state === 'paused' ? ' badge-warn' : ''}`} title="Training state">
          {trainingBadgeText(state, queued)}
        </span>
      )}
      <div role="status" aria-live="polite" className="live-status" title="The adapter version that answers now (v0 is the base model)">
        {live === null ? 'Live: …' : `Live: v${live}`}
      </div>
    </>
  );
}
