/**
 * The Data screen: the recorded sessions and turns, filtered (has feedback, reward range, trained or
 * not, one session), paged newest first; a turn opened in detail; deleting a session; exporting
 * the turns the filters show (every session without filters) as JSON lines.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';
import type { SessionInfo, TurnQuery, TurnView } from '../api/contract.js';

export type TriState = 'any' | 'yes' | 'no';

export interface DataFilter {
  hasFeedback: TriState;
  trained: TriState;
  minReward: string;
  maxReward: string;
  sessionId: string;
  /** Text the turn's messages or answer contain. */
  text: string;
}

export const EMPTY_FILTER: DataFilter = { hasFeedback: 'any', trained: 'any', minReward: '', maxReward: '', sessionId: '', text: '' };

/** Turns fetched per page. */
export const PAGE_SIZE = 50;

export interface DataState {
  sessions: SessionInfo[];
  filter: DataFilter;
  filterError: string | null;
  turns: TurnView[];
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  selected: TurnView | null;
  sessionMessage: string | null;

  setFilter(f: Partial<DataFilter>): void;
  load(): Promise<void>;
  more(): Promise<void>;
  open(turnId: string): Promise<void>;
  close(): void;
  deleteSession(id: string): Promise<boolean>;
  exportAll(): Promise<Blob | null>;
}

export type DataStore = StoreApi<DataState>;
type SetData = DataStore['setState'];
type GetData = DataStore['getState'];

const tri = (t: TriState) => (t === 'any' ? undefined : t === 'yes' ? ('true' as const) : ('false' as const));

/** The query for a filter, or the reason it is not valid. */
export function filterQuery(f: DataFilter): { query: TurnQuery; error: string | null } {
  const q: TurnQuery = {
    has_feedback: tri(f.hasFeedback),
    trained: tri(f.trained),
    session_id: f.sessionId || undefined,
    q: f.text.trim() || undefined,
  };
  const range: Record<'min_reward' | 'max_reward', number | undefined> = { min_reward: undefined, max_reward: undefined };
  for (const [key, label, text] of [
    ['min_reward', 'Minimum reward', f.minReward],
    ['max_reward', 'Maximum reward', f.maxReward],
  ] as const) {
    if (text.trim() === '') continue;
    const n = Number(text);
    if (!Number.isFinite(n) || n < -1 || n > 1) return { query: q, error: `${label} must be a number from −1 to 1; got “${text}”.` };
    range[key] = n;
  }
  if (range.min_reward !== undefined && range.max_reward !== undefined && range.min_reward > range.max_reward)
    return { query: q, error: 'The minimum reward is above the maximum: no turn can match.' };
  return { query: { ...q, ...range }, error: null };
}

export function createDataStore(api: ApiClient): DataStore {
  return createStore<DataState>()((set, get) => ({
    sessions: [],
    filter: EMPTY_FILTER,
    filterError: null,
    turns: [],
    hasMore: false,
    loading: false,
    error: null,
    selected: null,
    sessionMessage: null,
    ...listActions(set, get, api),
    ...itemActions(set, get, api),
  }));
}

/** The filtered list of turns, newest first, a page at a time. */
function listActions(set: SetData, get: GetData, api: ApiClient): Pick<DataState, 'setFilter' | 'load' | 'more'> {
  return {
    setFilter(f) {
      set((s) => ({ filter: { ...s.filter, ...f } }));
      void get().load();
    },

    async load() {
      const { query, error } = filterQuery(get().filter);
      set({ filterError: error });
      if (error) return;
      set({ loading: true });
      try {
        const [sessions, page] = await Promise.all([api.sessions(), api.turns({ ...query, limit: PAGE_SIZE })]);
        set({ sessions: sessions.data, turns: page.data, hasMore: page.has_more, error: null });
      } catch (err) {
        set({ error: `Could not load the recorded turns: ${(err as Error).message}` });
      } finally {
        set({ loading: false });
      }
    },

    async more() {
      const { turns, filter } = get();
      const last = turns.at(-1);
      if (!last) return;
      set({ loading: true });
      try {
        // Pages go by time: the next page is what was created before the oldest turn shown.
        const page = await api.turns({ ...filterQuery(filter).query, limit: PAGE_SIZE, before: last.created_at });
        set((s) => ({ turns: [...s.turns, ...page.data], hasMore: page.has_more }));
      } catch (err) {
        set({ error: `Could not load more turns: ${(err as Error).message}` });
      } finally {
        set({ loading: false });
      }
    },
  };
}

/** One turn opened in detail, a session deleted, every session exported. */
function itemActions(set: SetData, get: GetData, api: ApiClient): Pick<DataState, 'open' | 'close' | 'deleteSession' | 'exportAll'> {
  return {
    async open(turnId) {
      try {
        set({ selected: await api.turn(turnId) });
      } catch (err) {
        set({ error: `Could not open the turn: ${(err as Error).message}` });
      }
    },

    close() {
      set({ selected: null });
    },

    async deleteSession(id) {
      try {
        await api.deleteSession(id);
        set({ sessionMessage: `Deleted session ${id} and its untrained samples.` });
        if (get().filter.sessionId === id) set((s) => ({ filter: { ...s.filter, sessionId: '' } }));
        await get().load();
        return true;
      } catch (err) {
        set({ sessionMessage: `Could not delete session ${id}: ${(err as Error).message}` });
        return false;
      }
    },

    async exportAll() {
      const { query, error } = filterQuery(get().filter);
      if (error) {
        set({ error: `Export not started: ${error}` });
        return null;
      }
      try {
        // What the list shows: the same filters (none: every session).
        return await api.exportSessions(query);
      } catch (err) {
        set({ error: `Export failed: ${(err as Error).message}` });
        return null;
      }
    },
  };
}
