/**
 * Feedback on answers (👍, 👎, a hint), their receipts, and rolling back to before an answer was
 * trained on. The core is the one source of truth for a receipt: when an event names a turn shown
 * here, the turn is fetched again (several events close together cost one fetch).
 */
import type { ClawLoopEvent } from '../api/events.js';
import type { TurnView } from '../api/contract.js';
import { omit } from './chatConversations.js';
import { errorText, type ChatDeps, type GetChat, type SetChat } from './chatStore.js';

export interface FeedbackActions {
  /** 👍 or 👎; the same rating again clears it. */
  rate(turnId: string, rating: 'up' | 'down'): Promise<void>;
  submitHint(turnId: string, hint: string): Promise<void>;
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
  const { api } = deps;
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const fail = (id: string, msg: string) => set((s) => ({ actionErrors: { ...s.actionErrors, [id]: msg } }));
  const clear = (id: string) => set((s) => ({ actionErrors: omit(s.actionErrors, id) }));
  const putTurn = (t: TurnView) => set((s) => ({ turns: { ...s.turns, [t.id]: t } }));

  const later = (id: string) => {
    if (timers.has(id)) return;
    timers.set(
      id,
      setTimeout(() => {
        timers.delete(id);
        void get().refreshTurn(id);
      }, REFRESH_COALESCE_MS),
    );
  };

  async function feedback(turnId: string, change: { rating?: 'up' | 'down' | null; hint?: string | null }) {
    const before = get().turns[turnId];
    if (before) {
      const fb = { rating: before.feedback?.rating ?? null, hint: before.feedback?.hint ?? null, updated_at: Date.now(), ...change };
      putTurn({ ...before, feedback: fb });
    }
    try {
      await api.feedback(turnId, change);
      clear(turnId);
    } catch (err) {
      if (before) putTurn(before);
      fail(turnId, `Feedback was not recorded: ${errorText(err)}`);
      return;
    }
    await get().refreshTurn(turnId);
  }

  return {
    async rate(turnId, rating) {
      const current = get().turns[turnId]?.feedback?.rating ?? null;
      await feedback(turnId, { rating: current === rating ? null : rating });
    },

    async submitHint(turnId, hint) {
      const clean = hint.trim();
      await feedback(turnId, { hint: clean || null });
    },

    async refreshTurn(turnId) {
      try {
        putTurn(await api.turn(turnId));
      } catch {
        // The core is away: the resync after it comes back refetches what is shown.
      }
    },

    async rollbackBefore(turnId) {
      const receipt = get().turns[turnId]?.receipt;
      const trainedBy = receipt?.checkpoint_id ?? null;
      if (!trainedBy) {
        fail(turnId, 'This answer has not been trained on yet, so there is nothing to roll back.');
        return null;
      }
      try {
        const list = await api.checkpoints();
        const cp = list.data.find((c) => c.id === trainedBy);
        const target = cp?.parent_id ?? 'base';
        const r = await api.rollback(target);
        clear(turnId);
        deps.onLiveChanged?.();
        for (const t of Object.values(get().turns)) if (t.receipt.stage === 'live' || t.receipt.stage === 'trained') later(t.id);
        return r.adapter_version;
      } catch (err) {
        fail(turnId, `Roll back failed: ${errorText(err)}`);
        return null;
      }
    },

    onEvent(ev) {
      const shown = get().turns;
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
          // Trained answers become live (or stop being live after a rollback).
          for (const t of Object.values(shown)) if (t.receipt.stage === 'trained' || t.receipt.stage === 'live') later(t.id);
          break;
        case 'turn.captured': {
          const conv = ev.data.session_id;
          if (conv && !get().conversations.some((c) => c.id === conv)) void get().loadConversations();
          // A turn recorded by another client in the open conversation: show it.
          const open = get().activeId;
          const known = (get().threads[open ?? ''] ?? []).some(
            (it) => it.kind === 'answer' && (it.turnId === ev.data.turn_id || it.again?.turnId === ev.data.turn_id),
          );
          if (open && conv === open && !known && get().sending !== open) void get().loadThread(open);
          break;
        }
        default:
          break;
      }
    },
  };
}
