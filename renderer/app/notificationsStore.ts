/**
 * In-app notifications of what the learning loop did while the person was elsewhere in the app: a
 * step started, finished or was skipped; a version went live; a checkpoint was held back. Built
 * from the core's events; the newest few are shown (and announced) until dismissed or stale.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ClawLoopEvent } from '../api/events.js';

export interface Notice {
  id: number;
  text: string;
  tone: 'info' | 'good' | 'warn';
  at: number;
}

export interface NotificationsState {
  notices: Notice[];
  onEvent(ev: ClawLoopEvent): void;
  dismiss(id: number): void;
}

export type NotificationsStore = StoreApi<NotificationsState>;

/** How many notices stay on screen, newest last. */
const SHOWN = 3;
/**
 * A notice goes after this long (ms): 8 s, enough to read two sentences; it told what happened,
 * and the screens keep what is (Checkpoints: each version, live or held back, and why).
 */
export const NOTICE_TTL_MS = 8_000;

const stepOf = (checkpointId: string | null) => /^step-0*(\d+)$/.exec(checkpointId ?? '')?.[1] ?? null;

/** The words of an event worth telling, or null. `doneSteps`: the steps done so far, as the core store knows. */
export function noticeFor(ev: ClawLoopEvent, doneSteps: number | null): Omit<Notice, 'id' | 'at'> | null {
  switch (ev.event) {
    case 'training.state':
      if (ev.data.state !== 'training') return null;
      return {
        text:
          doneSteps === null
            ? 'A training step started on the rated answers.'
            : `Step ${doneSteps + 1} started: training on the rated answers.`,
        tone: 'info',
      };
    case 'train.step':
      return ev.data.skipped
        ? {
            text: `Step ${ev.data.step} was skipped: ${ev.data.skip_reason ?? 'no reason given'}. The live version is unchanged.`,
            tone: 'warn',
          }
        : { text: `Step ${ev.data.step} done: ${ev.data.samples} sample(s) in ${ev.data.step_seconds.toFixed(1)} s.`, tone: 'info' };
    case 'checkpoint.saved':
      return ev.data.competence?.held_back
        ? {
            text: `Step ${ev.data.step} was held back: it did worse on the competence check; v${ev.data.version} stays off (Checkpoints can make it live).`,
            tone: 'warn',
          }
        : null;
    case 'adapter.live': {
      const v = `v${ev.data.version}`;
      if (ev.data.reason === 'trained') {
        const step = stepOf(ev.data.checkpoint_id);
        return { text: `${v} is live${step ? `: trained in step ${step}` : ''}. New answers come from it.`, tone: 'good' };
      }
      if (ev.data.reason === 'rollback')
        return {
          text: `${v} is live: ${ev.data.checkpoint_id ? `step ${stepOf(ev.data.checkpoint_id) ?? '?'}'s adapter` : 'the base model'} again, after a rollback.`,
          tone: 'good',
        };
      return ev.data.reason === 'pin' ? { text: `${v} is live.`, tone: 'good' } : null;
    }
    default:
      return null;
  }
}

/** @param doneSteps The steps done so far (from the core store), for "step N started". */
export function createNotificationsStore(doneSteps: () => number | null, now: () => number = Date.now): NotificationsStore {
  let next = 1;
  // The state is published again and again while it holds: a step starts when it becomes 'training'.
  let state: string | null = null;
  return createStore<NotificationsState>()((set) => ({
    notices: [],
    onEvent(ev) {
      if (ev.event === 'training.state') {
        const was = state;
        state = ev.data.state;
        if (was === state) return;
      }
      const n = noticeFor(ev, doneSteps());
      if (!n) return;
      const at = now();
      set((s) => ({ notices: [...s.notices.filter((x) => at - x.at < NOTICE_TTL_MS), { ...n, id: next++, at }].slice(-SHOWN) }));
    },
    dismiss(id) {
      set((s) => ({ notices: s.notices.filter((x) => x.id !== id) }));
    },
  }));
}
