/**
 * What the Dashboard says about steps while the trainer works: the status counts the steps done, so
 * during step 1 it says 0 while the plots and receipts already talk of step 1. These words name the
 * step being worked on, and what the live version waits for.
 */
import type { TrainingSnapshot } from '../app/coreStore.js';

export interface StepProgress {
  /** The Step value: "3", "4 in progress (3 done)", "4 done, being checked before it goes live". */
  step: string;
  /** What follows the live version, or '' when nothing is on its way: "step 4 goes live when it is done". */
  liveNote: string;
}

/**
 * @param finishedStep The step the events said is done but not live yet (the core store's).
 * @param pendingCheck Whether the checkpoint list shows the last step's checkpoint waiting for the
 *   competence gate (an app opened during a check has seen no events yet).
 */
export function stepProgress(
  status: Pick<TrainingSnapshot, 'state' | 'step'>,
  finishedStep: number | null,
  pendingCheck: boolean,
): StepProgress {
  const done = status.step;
  if (status.state !== 'training') return { step: String(done), liveNote: '' };
  if (finishedStep === done || pendingCheck) {
    return { step: `${done} done, being checked before it goes live`, liveNote: `step ${done} goes live if it passes the check` };
  }
  return { step: `${done + 1} in progress (${done} done)`, liveNote: `step ${done + 1} goes live when it is done` };
}
