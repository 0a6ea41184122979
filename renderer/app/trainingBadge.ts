/** The words of the header's training badge. */
import type { TrainingState } from '../api/contract.js';

const STATE_TEXT: Record<TrainingState, string> = {
  off: 'Training off',
  starting: 'Training starts',
  idle: 'Training idle',
  judging: 'Judging turns',
  training: 'Training',
  paused: 'Training paused',
  error: 'Training error',
  stopping: 'Shutting down: finishing the training step',
};

/** What the badge says for a state and the samples waiting: "Training paused · 3 queued". */
export function trainingBadgeText(state: TrainingState, queued: number): string {
  // A state this build does not know (a newer core) is shown as the core names it.
  const text = STATE_TEXT[state] ?? `Training ${String(state)}`;
  return queued > 0 ? `${text} · ${queued} queued` : text;
}
