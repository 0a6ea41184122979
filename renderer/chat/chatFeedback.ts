/**
 * Feedback on answers (👍, 👎, a hint), their receipts, and rolling back to before an answer was
 * trained on. The core is the one source of truth for a receipt: when an event names a turn shown
 * here, the turn is fetched again (several events close together cost one fetch).
 */
import type { ClawLoopEvent, EventData } from '../api/events.js';
import type { TurnView } from '../api/contract.js';
import { omit } from './chatConversations.js';
import type { ChatContext, ChatDeps, GetChat, SetChat } from './chatStore.js';
import { errorText } from './errorText.js';

export interface FeedbackActions {
  /** 👍 or 👎; the same rating again clears it. */
  rate(turnId: string, rating: 'up' | 'down'): Promise<void>;
  submitHint(turnId: string, hint: string): Promise<void>;
  /** The hint judge's hint for this answer does not train; the answer is judged again without it. */
  rejectJudgeHint(turnId: string): Promise<void>;
  /** Fetches the core's view of a turn (its feedback and receipt). */
  refreshTurn(turnId: string): Promise<void>;
  /**
   * Makes live the version before the one trained on this answer: the parent of the checkpoint
   * whose step trained on it (the base model when it has none). Resolves with the new version.
   */
  rollbackBefore(turnId: string): Promise<number | null>;
  onEvent(ev: ClawLoopEvent): void;
}

/** How long events about one turn are gathered before it is fetched again (ms). */
const REFRESH_COALESCE_MS = 150;

export function feedbackActions(set: SetChat, get: GetChat, deps: ChatDeps): FeedbackActions {
  const c: ChatContext = { set, get, deps };
  const later = refetchLater(get);
  return {
    rate: (turnId, rating) => {
      const current = get().turns[turnId]?.feedback?.rating ?? null;
      return feedback(c, turnId, { rating: current === rating ? null : rating });
    },
    submitHint: (turnId, hint) => feedback(c, turnId, { hint: hint.trim() || null }),
    rejectJudgeHint: (turnId) => feedback(c, turnId, { reject_judge_hint: true }),
    async refreshTurn(turnId) {
      try {
        putTurn(c, await deps.api.turn(turnId));
      } catch {
        // The core is away: the resync after it comes back refetches what is shown.
      }
    },
    rollbackBefore: (turnId) => rollbackBefore(c, later, turnId),
    onEvent: (ev) => onEvent(c, later, ev),
  };
}

/** Refetches a turn soon; several calls for one turn close together cost one fetch. */
function refetchLater(get: GetChat): (turnId: string) => void {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  return (id) => {
    if (timers.has(id)) return;
    timers.set(
      id,
      setTimeout(() => {
        timers.delete(id);
        void get().refreshTurn(id);
      }, REFRESH_COALESCE_MS),
    );
  };
}

const fail = ({ set }: ChatContext, id: string, msg: string) => set((s) => ({ actionErrors: { ...s.actionErrors, [id]: msg } }));
const clear = ({ set }: ChatContext, id: string) => set((s) => ({ actionErrors: omit(s.actionErrors, id) }));
const putTurn = ({ set }: ChatContext, t: TurnView) => set((s) => ({ turns: { ...s.turns, [t.id]: t } }));

/** Trained answers become live, or stop being live after a rollback: their receipts move. */
function refetchTrained(get: GetChat, later: (turnId: string) => void): void {
  for (const t of Object.values(get().turns)) if (t.receipt.stage === 'live' || t.receipt.stage === 'trained') later(t.id);
}

/** Shows the change at once, sends it, and undoes it when the core refuses. */
async function feedback(
  c: ChatContext,
  turnId: string,
  change: { rating?: 'up' | 'down' | null; hint?: string | null; reject_judge_hint?: boolean },
): Promise<void> {
  const before = c.get().turns[turnId];
  if (before) {
    const was = before.feedback;
    const fb = {
      rating: was?.rating ?? null,
      hint: was?.hint ?? null,
      reject_judge_hint: was?.reject_judge_hint ?? false,
      updated_at: Date.now(),
      ...change,
    };
    putTurn(c, { ...before, feedback: fb });
  }
  try {
    await c.deps.api.feedback(turnId, change);
    clear(c, turnId);
  } catch (err) {
    if (before) putTurn(c, before);
    fail(c, turnId, `Feedback was not recorded: ${errorText(err)}`);
    return;
  }
  await c.get().refreshTurn(turnId);
}

async function rollbackBefore(c: ChatContext, later: (turnId: string) => void, turnId: string): Promise<number | null> {
  const trainedBy = c.get().turns[turnId]?.receipt?.checkpoint_id ?? null;
  if (!trainedBy) {
    fail(c, turnId, 'This answer has not been trained on yet, so there is nothing to roll back.');
    return null;
  }
  try {
    const list = await c.deps.api.checkpoints();
    const cp = list.data.find((x) => x.id === trainedBy);
    const r = await c.deps.api.rollback(cp?.parent_id ?? 'base');
    clear(c, turnId);
    c.deps.onLiveChanged?.();
    refetchTrained(c.get, later);
    return r.adapter_version;
  } catch (err) {
    fail(c, turnId, `Roll back failed: ${errorText(err)}`);
    return null;
  }
}

function onEvent(c: ChatContext, later: (turnId: string) => void, ev: ClawLoopEvent): void {
  const shown = c.get().turns;
  switch (ev.event) {
    case 'feedback.received':
    case 'sample.judged':
    case 'sample.dropped':
      if (shown[ev.data.turn_id]) later(ev.data.turn_id);
      break;
    case 'train.step':
      for (const id of ev.data.turn_ids ?? []) if (shown[id]) later(id);
      break;
    case 'adapter.live':
      refetchTrained(c.get, later);
      break;
    case 'turn.captured':
      showCaptured(c, ev.data);
      break;
    default:
      break;
  }
}

/** A turn recorded by another client: list its conversation, and show it when that conversation is open. */
function showCaptured({ get }: ChatContext, d: EventData<'turn.captured'>): void {
  const conv = d.session_id;
  if (conv && !get().conversations.some((c) => c.id === conv)) void get().loadConversations();
  const open = get().activeId;
  const known = (get().threads[open ?? ''] ?? []).some(
    (it) => it.kind === 'answer' && (it.turnId === d.turn_id || it.again?.turnId === d.turn_id),
  );
  if (open && conv === open && !known && get().sending !== open) void get().loadThread(open);
}
