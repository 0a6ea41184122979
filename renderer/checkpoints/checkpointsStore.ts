/**
 * The Checkpoints screen's state: the list with its lineage, the action running on each row and
 * its outcome (shown on that row), and Compare (one prompt answered by two versions, the pick
 * recorded as feedback).
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';
import type { CheckpointInfo, ExportFormat, ExportResponse, RollbackVersion } from '../api/contract.js';
import type { ClawLoopEvent } from '../api/events.js';

export type RowAction = 'rollback' | 'pin' | 'export';

export interface RowOutcome {
  ok: boolean;
  message: string;
  files?: string[];
  dir?: string;
}

export interface CheckpointsState {
  rows: CheckpointInfo[];
  /** The versions rollbacks issued (each serves a row's adapter, or the base model, again). */
  rollbacks: RollbackVersion[];
  liveId: string | null;
  loaded: boolean;
  error: string | null;
  busy: Record<string, RowAction>;
  outcomes: Record<string, RowOutcome>;

  load(): Promise<void>;
  rollback(id: string): Promise<boolean>;
  togglePin(id: string): Promise<void>;
  /** Saves a row's name and note; resolves with why it failed, or null. */
  label(id: string, label: { name: string; note: string }): Promise<string | null>;
  exportTo(id: string, format: ExportFormat, dir?: string): Promise<ExportResponse | null>;
  onEvent(ev: ClawLoopEvent): void;
}

export type CheckpointsStore = StoreApi<CheckpointsState>;
type SetCheckpoints = CheckpointsStore['setState'];
type GetCheckpoints = CheckpointsStore['getState'];

/**
 * The rows newest first, each with whether it starts a branch: training continued from a parent
 * that already had a child (after a rollback, or after that child was held back), so the lineage
 * forks there; `bypassed` is that earlier child.
 */
export function lineageRows(rows: CheckpointInfo[]): Array<{ row: CheckpointInfo; branch: boolean; bypassed: CheckpointInfo | null }> {
  const firstChild = new Map<string, CheckpointInfo>();
  for (const r of [...rows].sort((a, b) => a.step - b.step)) {
    const parent = r.parent_id ?? 'base';
    if (!firstChild.has(parent)) firstChild.set(parent, r);
  }
  return [...rows]
    .sort((a, b) => b.step - a.step)
    .map((row) => {
      const first = firstChild.get(row.parent_id ?? 'base')!;
      return first.id === row.id ? { row, branch: false, bypassed: null } : { row, branch: true, bypassed: first };
    });
}

/** Calls one row's action, marking the row busy meanwhile and keeping the outcome on the row. */
type RowRunner = <T>(id: string, action: RowAction, fn: () => Promise<T>, ok: (v: T) => RowOutcome) => Promise<T | null>;

function rowRunner(set: SetCheckpoints): RowRunner {
  return async (id, action, fn, ok) => {
    set((s) => ({ busy: { ...s.busy, [id]: action } }));
    try {
      const v = await fn();
      set((s) => ({ outcomes: { ...s.outcomes, [id]: ok(v) } }));
      return v;
    } catch (err) {
      set((s) => ({ outcomes: { ...s.outcomes, [id]: { ok: false, message: (err as Error).message } } }));
      return null;
    } finally {
      set((s) => {
        const busy = { ...s.busy };
        delete busy[id];
        return { busy };
      });
    }
  };
}

/**
 * @param onLiveVersion Called with the live version each loaded list names (the header follows
 *   it, whoever rolled back); by default nothing is told.
 */
export function createCheckpointsStore(api: ApiClient, onLiveVersion: (version: number) => void = () => {}): CheckpointsStore {
  return createStore<CheckpointsState>()((set, get) => ({
    rows: [],
    rollbacks: [],
    liveId: null,
    loaded: false,
    error: null,
    busy: {},
    outcomes: {},
    ...listActions(set, get, api, onLiveVersion),
    ...rowActions(get, api, rowRunner(set)),
  }));
}

function listActions(
  set: SetCheckpoints,
  get: GetCheckpoints,
  api: ApiClient,
  onLiveVersion: (version: number) => void,
): Pick<CheckpointsState, 'load' | 'onEvent'> {
  let reloadTimer: ReturnType<typeof setTimeout> | null = null;
  return {
    async load() {
      try {
        const list = await api.checkpoints();
        set({ rows: list.data, rollbacks: list.rollbacks, liveId: list.live_checkpoint, loaded: true, error: null });
        onLiveVersion(list.adapter_version);
      } catch (err) {
        set({ error: `Could not load the checkpoints: ${(err as Error).message}` });
      }
    },

    onEvent(ev) {
      if (ev.event !== 'checkpoint.saved' && ev.event !== 'adapter.live') return;
      // Several events in a row (a step saves and goes live) cost one reload.
      if (reloadTimer) return;
      reloadTimer = setTimeout(() => {
        reloadTimer = null;
        void get().load();
      }, 100);
    },
  };
}

function rowActions(
  get: GetCheckpoints,
  api: ApiClient,
  run: RowRunner,
): Pick<CheckpointsState, 'rollback' | 'togglePin' | 'exportTo' | 'label'> {
  return {
    async label(id, label) {
      try {
        await api.labelCheckpoint(id, label);
        await get().load();
        return null;
      } catch (err) {
        return `Not saved: ${(err as Error).message}`;
      }
    },

    async rollback(id) {
      const same = id === 'base' ? 'v0, the base model' : `v${get().rows.find((r) => r.id === id)?.adapter_version ?? '?'}`;
      const message = (v: number) => `Live now as v${v}: ${same} again, under a number of its own.`;
      const r = await run(
        id,
        'rollback',
        () => api.rollback(id),
        (v) => ({ ok: true, message: message(v.adapter_version) }),
      );
      await get().load();
      return r !== null;
    },

    async togglePin(id) {
      const row = get().rows.find((r) => r.id === id);
      const pinned = !(row?.pinned ?? false);
      await run(
        id,
        'pin',
        () => api.pin(id, pinned),
        (v) => ({ ok: true, message: v.pinned ? 'Pinned: kept whatever the retention.' : 'Unpinned.' }),
      );
      await get().load();
    },

    async exportTo(id, format, dir) {
      return run(
        id,
        'export',
        () => api.exportCheckpoint(id, format, dir),
        (v) => ({ ok: true, message: `Exported ${v.files.length} file(s)${v.dir ? ` to ${v.dir}` : ''}.`, files: v.files, dir: v.dir }),
      );
    },
  };
}
