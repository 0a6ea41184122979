/** The header's live adapter version ("Live: vN") and the training state next to it. */
import { useStore } from 'zustand';
import { useServices } from './servicesContext.js';

const STATE_TEXT: Record<string, string> = {
  idle: 'idle',
  judging: 'judging',
  training: 'training',
  paused: 'paused',
  starting: 'starting',
  failed: 'failed',
  error: 'error',
  off: 'off',
};

export function LiveStatus() {
  const { core } = useServices();
  const live = useStore(core, (s) => s.liveVersion);
  const state: string | null = useStore(core, (s) => s.training?.state ?? null);
  const queued = useStore(core, (s) => s.training?.queued_samples ?? 0);
  const bad = state === 'failed' || state === 'error';
  return (
    <>
      {state && (
        <span className={`badge${bad ? ' badge-error' : state === 'paused' ? ' badge-warn' : ''}`} title="Training state">
          Training {STATE_TEXT[state] ?? state}
          {queued ? ` · ${queued} queued` : ''}
        </span>
      )}
      <div role="status" aria-live="polite" className="live-status" title="The adapter version that answers now (v0 is the base model)">
        {live === null ? 'Live: …' : `Live: v${live}`}
      </div>
    </>
  );
}
