/**
 * Everything the screens use, wired once: the API key, the API client, the event stream and the
 * stores, with each core event routed to the stores that care. No DOM here: the browser's pieces
 * (storage, the frame clock) are passed in, so the same wiring runs under node:test.
 */
import { ApiClient } from '../api/client.js';
import { ApiKeyStore, forgetStoredKey, type KeyValueStorage } from '../api/apiKey.js';
import { SessionProof } from '../api/sessionProof.js';
import type { ClawLoopEvent } from '../api/events.js';
import { EventStreamClient, type ResyncReason } from '../api/eventStream.js';
import type { FetchLike } from '../api/transport.js';
import { createChatStore, type ChatStore } from '../chat/chatStore.js';
import { createCheckpointsStore, type CheckpointsStore } from '../checkpoints/checkpointsStore.js';
import { createCompareStore, type CompareStore } from '../checkpoints/compareStore.js';
import { createConnectStore, type ConnectStore } from '../connect/connectStore.js';
import { createMetricsStore, type MetricsStore } from '../dashboard/metricsStore.js';
import { createTrainingStore, type TrainingStore } from '../dashboard/trainingStore.js';
import { createDataStore, type DataStore } from '../data/dataStore.js';
import { createSettingsStore, type SettingsStore } from '../settings/settingsStore.js';
import { createCoreStore, type CoreStore } from './coreStore.js';
import { createNotificationsStore, type NotificationsStore } from './notificationsStore.js';

export interface ServicesEnv {
  storage: KeyValueStorage | null;
  frame: (fn: () => void) => void;
  newId: () => string;
  /** '' (default): the page's origin. */
  baseUrl?: string;
  fetch?: FetchLike;
  /** Event stream reconnect timing (tests shorten it). */
  retryMs?: number;
  idleTimeoutMs?: number;
}

export interface Services {
  keys: ApiKeyStore;
  /** The proof that goes with this browser's sign-in cookie (kept in the origin's storage). */
  proof: SessionProof;
  api: ApiClient;
  events: EventStreamClient;
  core: CoreStore;
  chat: ChatStore;
  metrics: MetricsStore;
  training: TrainingStore;
  checkpoints: CheckpointsStore;
  compare: CompareStore;
  data: DataStore;
  settings: SettingsStore;
  connect: ConnectStore;
  notifications: NotificationsStore;
  /** Starts the event stream and loads the first snapshots. */
  start(): void;
  stop(): void;
  /** The banner's Retry: reconnect now and refetch. */
  retry(): void;
}

/** The stores the screens read, one per concern. */
type Stores = Pick<
  Services,
  'core' | 'chat' | 'metrics' | 'training' | 'checkpoints' | 'compare' | 'data' | 'settings' | 'connect' | 'notifications'
>;

export function createServices(env: ServicesEnv): Services {
  // The key lives in this page's memory only: the browser is signed in by an HttpOnly cookie and
  // the proof kept in storage (docs/security.md). A key an older version kept in storage is forgotten.
  const keys = new ApiKeyStore(null);
  const proof = new SessionProof(env.storage);
  forgetStoredKey(env.storage);
  const { api, core } = connectCore(env, keys, proof);
  const stores = createStores(env, api, keys, proof, core);
  const resync = resyncer(stores);
  const events = new EventStreamClient({
    open: (lastId, signal) => api.transport.send('GET', '/api/events', { headers: lastId ? { 'last-event-id': lastId } : {}, signal }),
    onEvent: (ev) => routeEvent(stores, ev),
    onStatus: (s) => core.getState().setStream(s),
    onResync: resync,
    retryMs: env.retryMs,
    idleTimeoutMs: env.idleTimeoutMs,
  });
  // Once a key is accepted, what failed for want of it loads again (the list, the open thread, the screens).
  core.subscribe((s, prev) => {
    if (prev.needsKey && !s.needsKey) {
      events.retryNow();
      resync('reconnected');
    }
  });
  return {
    keys,
    proof,
    api,
    events,
    ...stores,
    start() {
      events.start();
      resync('start');
    },
    stop() {
      events.stop();
    },
    retry() {
      events.retryNow();
      resync('reconnected');
    },
  };
}

/** The API client and the core's store: the client tells the store about 401s and reachability. */
function connectCore(env: ServicesEnv, keys: ApiKeyStore, proof: SessionProof): { api: ApiClient; core: CoreStore } {
  // The callbacks only run once a request is made, after the store exists.
  let core: CoreStore | null = null;
  const api = new ApiClient({
    baseUrl: env.baseUrl,
    fetch: env.fetch,
    getKey: () => keys.get(),
    getProof: () => proof.get(),
    onUnauthorized: (e) => core?.getState().unauthorized(e.message),
    onReachability: (up, err) => core?.getState().setReachable(up, err?.message),
    onShuttingDown: (e) => core?.getState().shuttingDown(e.message),
  });
  core = createCoreStore(api, keys, proof);
  return { api, core };
}

function createStores(env: ServicesEnv, api: ApiClient, keys: ApiKeyStore, proof: SessionProof, core: CoreStore): Stores {
  const refreshCore = () => void core.getState().refresh();
  // The list says which version is live: the header follows it (a rollback made here, or elsewhere).
  const checkpoints = createCheckpointsStore(api, (v) => core.getState().setLiveVersion(v));
  const metrics = createMetricsStore(api);
  checkpoints.subscribe((s, prev) => {
    if (s.rows !== prev.rows || s.liveId !== prev.liveId) metrics.getState().setCheckpoints(s.rows, s.liveId);
  });
  const chat = createChatStore({
    api,
    storage: env.storage,
    frame: env.frame,
    newId: env.newId,
    onLiveChanged: () => {
      refreshCore();
      void checkpoints.getState().load();
    },
  });
  return {
    core,
    chat,
    metrics,
    checkpoints,
    training: createTrainingStore(api, (s) => core.getState().setTrainingStatus(s)),
    compare: createCompareStore(api, env.newId),
    data: createDataStore(api),
    settings: createSettingsStore(api),
    connect: createConnectStore(api, keys, proof, refreshCore),
    notifications: createNotificationsStore(() => core.getState().training?.step ?? null),
  };
}

function routeEvent(s: Stores, ev: ClawLoopEvent): void {
  // Before the core store moves on: "step N started" counts the steps done until now.
  s.notifications.getState().onEvent(ev);
  s.core.getState().onEvent(ev);
  s.chat.getState().onEvent(ev);
  s.metrics.getState().onEvent(ev);
  s.checkpoints.getState().onEvent(ev);
}

/**
 * Refetches what the screens show after the stream (re)started, including what failed to load
 * during an outage (the Dashboard mends itself after a reconnect). Snapshots a screen has not asked
 * for yet (the dashboard's history, the checkpoints) are left for that screen to load, so the first
 * screen only waits for what it shows.
 */
function resyncer(s: Stores): (reason: ResyncReason | 'start') => void {
  return (reason) => {
    void s.core.getState().refresh();
    // A load that failed while the core was away counts as asked for: it is retried now.
    const cp = s.checkpoints.getState();
    if (cp.loaded || cp.error) void cp.load();
    const m = s.metrics.getState();
    // After a reconnect the replay fills the gap; when the events missed are gone, start over.
    if (m.loaded) void (reason === 'reset' || reason === 'gap' ? m.reload() : m.loadHistory());
    else if (m.error) void m.reload();
    const t = s.training.getState();
    if (t.config || t.loadError) void t.load();
    if (s.data.getState().error) void s.data.getState().load();
    if (s.settings.getState().loadError) void s.settings.getState().load();
    const c = s.chat.getState();
    if (reason === 'start') return; // the Chat screen loads its list when it opens
    void c.loadConversations();
    if (c.activeId && c.sending !== c.activeId) void c.loadThread(c.activeId);
  };
}
