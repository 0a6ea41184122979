/** A checkpoint row's buttons (Roll back, Pin, Export, Compare, Name and note) and the outcome of the last one. */
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import type { CheckpointInfo } from '../api/contract.js';
import { OutcomeText } from '../ui/OutcomeText.js';
import { readableCheckpointText } from './versionNames.js';

export interface RowActionsProps {
  row: CheckpointInfo;
  isLive: boolean;
  onExport: () => void;
  onCompare: () => void;
  onRollback: () => void;
  onLabel: () => void;
}

export function RowActions({ row, isLive, onExport, onCompare, onRollback, onLabel }: RowActionsProps) {
  const { checkpoints } = useServices();
  const busy = useStore(checkpoints, (s) => s.busy[row.id]);
  const outcome = useStore(checkpoints, (s) => s.outcomes[row.id]);
  return (
    <td>
      <div className="row actions">
        <button type="button" className="btn btn-small" disabled={isLive || !!busy} onClick={onRollback}>
          Roll back
        </button>
        <button
          type="button"
          className="btn btn-small"
          aria-pressed={row.pinned}
          disabled={!!busy}
          onClick={() => void checkpoints.getState().togglePin(row.id)}
        >
          Pin
        </button>
        <button type="button" className="btn btn-small" disabled={!!busy} onClick={onExport}>
          Export
        </button>
        <button type="button" className="btn btn-small" onClick={onCompare}>
          Compare
        </button>
        <button type="button" className="btn btn-small" onClick={onLabel}>
          Name and note
        </button>
      </div>
      {busy && <span className="muted">working…</span>}
      {outcome && <OutcomeText ok={outcome.ok}>{readableCheckpointText(outcome.message, [row])}</OutcomeText>}
    </td>
  );
}
