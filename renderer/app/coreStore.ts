/**
 * The app's view of the core itself: can it be reached (the banner), does it want an API key (the
 * key prompt), what it serves (info), which adapter version is live (the header), and the training
 * state. Fed by the API client's reachability callbacks, the event stream and a few GETs.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';
import type { ApiKeyStore } from '../api/apiKey.js';
import type { SessionProof } from '../api/sessionProof.js';
import type { Info, TrainingStatus } from '../api/contract.js';
import type { ClawLoopEvent, EventData } from '../api/events.js';
import type { StreamStatus } from '../api/eventStream.js';

export type Reachability = 'unknown' | 'up' | 'down';

export interface CoreError {
  where: string;
  message: string;
  at: number;
}

/**
 * The training status without its adapter version: the live version has one owner here,
 * `liveVersion`, which events and the checkpoint list move between two status fetches.
 */
export type TrainingSnapshot = Omit<TrainingStatus, 'adapter_version'>;

export interface CoreData {
  reachability: Reachability;
  /** Why the core could not be reached, in words. */
  downReason: string | null;
  stream: StreamStatus | null;
  /** The core answered 401: the key prompt is shown. */
  needsKey: boolean;
  keyMessage: string | null;
  info: Info | null;
  infoError: string | null;
  training: TrainingSnapshot | null;
  /** The live adapter version (0 = base model). */
  liveVersion: number | null;
  /**
   * A step the trainer finished and still holds in the 'training' state (the competence gate checks
   * its checkpoint before it goes live); null otherwise. Told by the events: a status has no such field.
   */
  finishedStep: number | null;
  /** Errors the core reported on the event stream (trainer, judge, inference), newest last. */
  errors: CoreError[];
  /**
   * The core announced its shutdown (`server.stopping`): it refuses new requests while it finishes
   * a training step, then closes. Cleared when it is back (reachable again, or a startup event).
   */
  stopping: EventData<'server.stopping'> | null;
}

export interface ConnectionActions {
  setReachable(up: boolean, reason?: string): void;
  setStream(s: StreamStatus): void;
  /** A request was refused because the core shuts down (for an app that missed the `server.stopping` event). */
  shuttingDown(refusal: string): void;
  unauthorized(message: string): void;
  /** Uses a key typed into the key prompt and checks it. */
  submitKey(key: string): Promise<boolean>;
}

export interface StatusActions {
  refresh(): Promise<void>;
  /** A training status from the core (a fetch, or the answer to Pause/Resume). */
  setTrainingStatus(s: TrainingStatus): void;
  setLiveVersion(version: number): void;
  onEvent(ev: ClawLoopEvent): void;
  dismissError(at: number): void;
}

export type CoreState = CoreData & ConnectionActions & StatusActions;
export type CoreStore = StoreApi<CoreState>;
type SetCore = CoreStore['setState'];
type GetCore = CoreStore['getState'];

/** How many reported core errors are kept for display. */
const MAX_ERRORS = 20;

const INITIAL: CoreData = {
  reachability: 'unknown',
  downReason: null,
  stream: null,
  needsKey: false,
  keyMessage: null,
  info: null,
  infoError: null,
  training: null,
  liveVersion: null,
  finishedStep: null,
  errors: [],
  stopping: null,
};

export function createCoreStore(api: ApiClient, keys: ApiKeyStore, proof: SessionProof): CoreStore {
  return createStore<CoreState>()((set, get) => ({
    ...INITIAL,
    ...connectionActions(set, get, api, keys, proof),
    ...statusActions(set, get, api),
  }));
}

/** Reachability, the event stream's status and the API key. */
function connectionActions(set: SetCore, get: GetCore, api: ApiClient, keys: ApiKeyStore, proof: SessionProof): ConnectionActions {
  return {
    setReachable(up, reason) {
      if (!up) set({ reachability: 'down', downReason: reason ?? 'no answer' });
      // Back after being away: a core that had announced its shutdown was started again.
      else if (get().reachability !== 'up')
        set({ reachability: 'up', downReason: null, ...(get().reachability === 'down' ? { stopping: null } : {}) });
    },

    setStream(s) {
      set({ stream: s });
    },

    shuttingDown(refusal) {
      if (get().stopping) return;
      // The refusal reads "<what it does>. It takes no new requests…": the banner says the first part.
      set({ stopping: { step: null, message: refusal.split('. ')[0] || 'ClawLoop is shutting down' } });
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
        // The cookie and its proof sign this browser in for later visits; the key stays in this page's memory only.
        proof.set((await api.signIn(key)).session_proof);
        set({ needsKey: false, keyMessage: null });
        void get().refresh();
        return true;
      } catch (err) {
        set({ needsKey: true, keyMessage: `That key did not work: ${(err as Error).message}` });
        return false;
      }
    },
  };
}

/** What the core serves, its training state, the live version and the errors it reported. */
function statusActions(set: SetCore, get: GetCore, api: ApiClient): StatusActions {
  return {
    async refresh() {
      const [info, training] = await Promise.allSettled([api.info(), api.trainingStatus()]);
      if (info.status === 'fulfilled') set({ info: info.value, infoError: null });
      else set({ infoError: (info.reason as Error).message });
      if (training.status === 'fulfilled') get().setTrainingStatus(training.value);
    },

    setTrainingStatus({ adapter_version, ...training }) {
      set({ training, liveVersion: adapter_version });
    },

    setLiveVersion(version) {
      if (get().liveVersion !== version) set({ liveVersion: version });
    },

    onEvent(ev) {
      // A state change before the first status: fetch the whole status instead.
      if (ev.event === 'training.state' && !get().training) {
        void get().refresh();
        return;
      }
      const patch = patchForEvent(get(), ev);
      if (patch) set(patch);
    },

    dismissError(at) {
      set((s) => ({ errors: s.errors.filter((e) => e.at !== at) }));
    },
  };
}

/** How a core event changes this store; null when it does not concern it. */
function patchForEvent(s: CoreData, ev: ClawLoopEvent): Partial<CoreData> | null {
  const t = s.training;
  switch (ev.event) {
    case 'adapter.live':
      // A startup event follows any shutdown announced before it (a replay after a restart).
      return { liveVersion: ev.data.version, finishedStep: null, ...(ev.data.reason === 'startup' ? { stopping: null } : {}) };
    case 'server.stopping':
      return { stopping: ev.data };
    case 'training.state':
      return t ? { training: withTrainingState(t, ev.data), ...(ev.data.state === 'training' ? {} : { finishedStep: null }) } : null;
    case 'train.step':
      return t && ev.data.step > t.step
        ? { training: { ...t, step: ev.data.step }, finishedStep: ev.data.skipped ? null : ev.data.step }
        : null;
    case 'checkpoint.saved':
      // The gate's verdict: held back (no adapter.live follows) or about to go live.
      return ev.data.competence ? { finishedStep: null } : null;
    case 'error':
      return { errors: [...s.errors, { where: ev.data.where, message: ev.data.message, at: ev.at }].slice(-MAX_ERRORS) };
    default:
      return null;
  }
}

function withTrainingState(t: TrainingSnapshot, d: EventData<'training.state'>): TrainingSnapshot {
  return {
    ...t,
    state: d.state,
    queued_samples: d.queue_length,
    pending_turns: d.pending_turns,
    error: d.state === 'error' ? (d.message ?? undefined) : t.error,
  };
}
