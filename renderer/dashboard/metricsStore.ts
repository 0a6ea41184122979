/**
 * The dashboard's live series: every training step's reward (and its rolling mean), loss, KL and
 * clip fraction, learning rate and step time, the queue length over time, and the checkpoint
 * markers. History comes from /api/metrics, then each `train.step` event appends one point. The
 * columns are mutated in place and `revision` counts changes, so 10,000+ steps cost one push per
 * step, not a copy.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';
import type { CheckpointInfo, StepRecord } from '../api/contract.js';
import type { ClawLoopEvent, EventData } from '../api/events.js';
import { RollingMean, SeriesBuffer } from './seriesBuffer.js';

export const STEP_SERIES = ['reward', 'rewardMean', 'loss', 'kl', 'clipFraction', 'learningRate', 'stepSeconds'] as const;
export type StepSeries = (typeof STEP_SERIES)[number];

/** Steps over which the reward's rolling mean is taken. */
export const REWARD_WINDOW = 20;

export interface CheckpointMarker {
  id: string;
  step: number;
  version: number;
  live: boolean;
  heldBack: boolean;
}

export interface MetricsState {
  steps: SeriesBuffer<StepSeries>;
  /** Queue length (samples waiting) against time in seconds since epoch. */
  queue: SeriesBuffer<'queued'>;
  markers: CheckpointMarker[];
  /** Bumped on every change of the columns or markers. */
  revision: number;
  loaded: boolean;
  error: string | null;

  loadHistory(): Promise<void>;
  /** Forgets every point and loads the history again (the core's event log started over). */
  reload(): Promise<void>;
  appendStep(row: StepPoint): void;
  appendQueue(length: number, atMs: number): void;
  setCheckpoints(rows: CheckpointInfo[], liveId: string | null): void;
  onEvent(ev: ClawLoopEvent): void;
}

/** One step as the plots need it, from /api/metrics or a train.step event. */
export interface StepPoint {
  step: number;
  reward: number | null;
  loss: number | null;
  kl: number | null;
  clipFraction: number | null;
  learningRate: number | null;
  stepSeconds: number | null;
}

export function pointFromMetrics(r: StepRecord): StepPoint {
  return {
    step: r.step,
    reward: r.mean_reward ?? null,
    loss: r.loss ?? null,
    kl: r.kl ?? null,
    clipFraction: r.clip_fraction ?? null,
    learningRate: r.learning_rate ?? null,
    stepSeconds: r.step_ms === undefined ? null : r.step_ms / 1000,
  };
}

export function pointFromEvent(d: EventData<'train.step'>): StepPoint {
  return {
    step: d.step,
    reward: d.reward_mean,
    loss: d.loss,
    kl: d.kl,
    clipFraction: d.clip_frac,
    learningRate: d.lr,
    stepSeconds: d.step_seconds,
  };
}

export type MetricsStore = StoreApi<MetricsState>;
type SetMetrics = MetricsStore['setState'];
type GetMetrics = MetricsStore['getState'];

export function createMetricsStore(api: ApiClient): MetricsStore {
  const mean = new RollingMean(REWARD_WINDOW);
  return createStore<MetricsState>()((set, get) => ({
    steps: new SeriesBuffer(STEP_SERIES),
    queue: new SeriesBuffer(['queued'] as const),
    markers: [],
    revision: 0,
    loaded: false,
    error: null,
    ...seriesActions(set, get, api, mean),
    ...markerActions(set, get),
  }));
}

/** The plotted columns: the history, then one point per step and per queue change. */
function seriesActions(
  set: SetMetrics,
  get: GetMetrics,
  api: ApiClient,
  mean: RollingMean,
): Pick<MetricsState, 'loadHistory' | 'reload' | 'appendStep' | 'appendQueue'> {
  return {
    async loadHistory() {
      try {
        const since = get().steps.lastX ?? 0;
        const { data } = await api.metrics(since);
        for (const r of data) if (!r.skipped) get().appendStep(pointFromMetrics(r));
        set({ loaded: true, error: null });
      } catch (err) {
        set({ error: `Could not load the training history: ${(err as Error).message}` });
      }
    },

    async reload() {
      get().steps.clear();
      get().queue.clear();
      mean.clear();
      set((st) => ({ revision: st.revision + 1 }));
      await get().loadHistory();
    },

    appendStep(p) {
      const s = get().steps;
      // Replayed events and the history overlap: a step is plotted once.
      if (s.lastX !== null && p.step <= s.lastX) return;
      s.push(p.step, { ...p, rewardMean: mean.push(p.reward) });
      set((st) => ({ revision: st.revision + 1 }));
    },

    appendQueue(length, atMs) {
      const q = get().queue;
      const t = atMs / 1000;
      if (q.lastX !== null && t < q.lastX) return;
      q.push(t, { queued: length });
      set((st) => ({ revision: st.revision + 1 }));
    },
  };
}

const byStep = (a: CheckpointMarker, b: CheckpointMarker) => a.step - b.step;

/** The checkpoint markers, from the checkpoint list and, between two lists, from events; and the event routing. */
function markerActions(set: SetMetrics, get: GetMetrics): Pick<MetricsState, 'setCheckpoints' | 'onEvent'> {
  const setMarkers = (markers: CheckpointMarker[]) => set((st) => ({ markers, revision: st.revision + 1 }));
  return {
    setCheckpoints(rows, liveId) {
      setMarkers(
        rows
          .map((c) => ({
            id: c.id,
            step: c.step,
            version: c.adapter_version,
            live: c.id === liveId,
            heldBack: c.competence?.held_back ?? false,
          }))
          .sort(byStep),
      );
    },

    onEvent(ev) {
      switch (ev.event) {
        case 'train.step':
          if (!ev.data.skipped) get().appendStep(pointFromEvent(ev.data));
          break;
        case 'training.state':
          get().appendQueue(ev.data.queue_length, ev.at);
          break;
        case 'checkpoint.saved': {
          const d = ev.data;
          const saved = { id: d.checkpoint_id, step: d.step, version: d.version, live: false, heldBack: d.competence?.held_back ?? false };
          setMarkers([...get().markers.filter((m) => m.step !== d.step), saved].sort(byStep));
          break;
        }
        case 'adapter.live':
          setMarkers(get().markers.map((m) => ({ ...m, live: m.id === ev.data.checkpoint_id })));
          break;
        default:
          break;
      }
    },
  };
}
