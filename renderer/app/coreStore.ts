/**
 * The app's view of the core itself: can it be reached (the banner), does it want an API key (the
 * key prompt), what it serves (info), which adapter version is live (the header), and the training
 * state. Fed by the API client's reachability callbacks, the event stream and a few GETs.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';
import type { ApiKeyStore } from '../api/apiKey.js';
import type { Info, TrainingStatus } from '../api/contract.js';
import type { ClawLoopEvent } from '../api/events.js';
import type { StreamStatus } from '../api/eventStream.js';

export type Reachability = 'unknown' | 'up' | 'down';

export interface CoreError {
  where: string;
  message: string;
  at: number;
}

export interface CoreState {
  reachability: Reachability;
  /** Why the core could not be reached, in words. */
  downReason: string | null;
  stream: StreamStatus | null;
  /** The core answered 401: the key prompt is shown. */
  needsKey: boolean;
  keyMessage: string | null;
  info: Info | null;
  infoError: string | null;
  training: TrainingStatus | null;
  /** The live adapter version (0 = base model). */
  liveVersion: number | null;
  /** Errors the core reported on the event stream (trainer, judge, inference), newest last. */
  errors: CoreError[];

  setReachable(up: boolean, reason?: string): void;
  setStream(s: StreamStatus): void;
  unauthorized(message: string): void;
  /** Uses a key typed into the key prompt and checks it. */
  submitKey(key: string): Promise<boolean>;
  refresh(): Promise<void>;
  onEvent(ev: ClawLoopEvent): void;
  dismissError(at: number): void;
}

export type CoreStore = StoreApi<CoreState>;

/** How many reported core errors are kept for display. */
const MAX_ERRORS = 20;

export function createCoreStore(api: ApiClient, keys: ApiKeyStore): CoreStore {
  return createStore<CoreState>()((set, get) => ({
    reachability: 'unknown',
    downReason: null,
    stream: null,
    needsKey: false,
    keyMessage: null,
    info: null,
    infoError: null,
    training: null,
    liveVersion: null,
    errors: [],

    setReachable(up, reason) {
      const was = get().reachability;
      if (up) {
        if (was !== 'up') set({ reachability: 'up', downReason: null });
      } else set({ reachability: 'down', downReason: reason ?? 'no answer' });
    },

    setStream(s) {
      set({ stream: s });
    },

    unauthorized(message) {
      // While the prompt is open, its own message (about the key just tried) stays.
      if (get().needsKey) return;
      set({ needsKey: true, keyMessage: keys.get() ? `The saved API key was refused: ${message}` : message });
    },

    async submitKey(key) {
      keys.set(key);
      try {
        await api.trainingStatus();
        set({ needsKey: false, keyMessage: null });
        void get().refresh();
        return true;
      } catch (err) {
        set({ needsKey: true, keyMessage: `That key did not work: ${(err as Error).message}` });
        return false;
      }
    },

    async refresh() {
      const [info, training] = await Promise.allSettled([api.info(), api.trainingStatus()]);
      if (info.status === 'fulfilled') set({ info: info.value, infoError: null });
      else set({ infoError: (info.reason as Error).message });
      if (training.status === 'fulfilled') set({ training: training.value, liveVersion: training.value.adapter_version });
    },

    onEvent(ev) {
      switch (ev.event) {
        case 'adapter.live':
          set((s) => ({
            liveVersion: ev.data.version,
            training: s.training ? { ...s.training, adapter_version: ev.data.version } : s.training,
          }));
          break;
        case 'training.state': {
          const t = get().training;
          if (t)
            set({
              training: {
                ...t,
                state: ev.data.state,
                queued_samples: ev.data.queue_length,
                pending_turns: ev.data.pending_turns,
                error: ev.data.state === 'error' ? (ev.data.message ?? undefined) : t.error,
              },
            });
          else void get().refresh();
          break;
        }
        case 'train.step': {
          const t = get().training;
          if (t && ev.data.step > t.step) set({ training: { ...t, step: ev.data.step } });
          break;
        }
        case 'error':
          set((s) => ({ errors: [...s.errors, { where: ev.data.where, message: ev.data.message, at: ev.at }].slice(-MAX_ERRORS) }));
          break;
        default:
          break;
      }
    },

    dismissError(at) {
      set((s) => ({ errors: s.errors.filter((e) => e.at !== at) }));
    },
  }));
}
