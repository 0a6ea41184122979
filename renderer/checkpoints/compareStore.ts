/**
 * Compare: one prompt answered by two versions side by side; the user picks the better one and the
 * pick is recorded as feedback (👍 on the pick, 👎 on the other), so it trains like any rating.
 * Each side is its own one-turn session, so neither answer becomes the other's next state.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';

export type Side = 'a' | 'b';

export interface CompareAnswer {
  /** The adapter asked: 'live', 'base' or a checkpoint id. */
  adapter: string;
  content: string;
  version: number | null;
  turnId: string | null;
  streaming: boolean;
  error: string | null;
}

export interface CompareState {
  prompt: string;
  answers: Record<Side, CompareAnswer> | null;
  picked: Side | null;
  pickMessage: string | null;
  running: boolean;

  setPrompt(text: string): void;
  run(adapterA: string, adapterB: string): Promise<void>;
  pick(side: Side): Promise<void>;
  reset(): void;
}

export type CompareStore = StoreApi<CompareState>;
type SetCompare = CompareStore['setState'];
type GetCompare = CompareStore['getState'];

const blank = (adapter: string): CompareAnswer => ({ adapter, content: '', version: null, turnId: null, streaming: true, error: null });

export function createCompareStore(api: ApiClient, newId: () => string): CompareStore {
  return createStore<CompareState>()((set, get) => {
    const ask = asker(api, set, get);
    return {
      prompt: '',
      answers: null,
      picked: null,
      pickMessage: null,
      running: false,

      setPrompt(text) {
        set({ prompt: text });
      },

      async run(adapterA, adapterB) {
        const prompt = get().prompt.trim();
        if (!prompt || get().running) return;
        const session = `compare-${newId()}`;
        set({ answers: { a: blank(adapterA), b: blank(adapterB) }, picked: null, pickMessage: null, running: true });
        await Promise.all([ask('a', adapterA, prompt, session), ask('b', adapterB, prompt, session)]);
        set({ running: false });
      },

      pick: (side) => pick(api, set, get, side),

      reset() {
        set({ answers: null, picked: null, pickMessage: null });
      },
    };
  });
}

/** Streams one side's answer into the store; a failure stays on that side. */
function asker(api: ApiClient, set: SetCompare, get: GetCompare) {
  const patch = (side: Side, p: Partial<CompareAnswer>) => set((s) => (s.answers ? { answers: { ...s.answers, [side]: { ...s.answers[side], ...p } } } : {}));
  return async (side: Side, adapter: string, prompt: string, session: string) => {
    try {
      const r = await api.chat(
        { messages: [{ role: 'user', content: prompt }], sessionId: `${session}-${side}`, turnType: 'main', adapter },
        (s) => patch(side, { turnId: s.completionId || null, version: s.version }),
        (d) => {
          const cur = get().answers?.[side];
          if (cur && d.content) patch(side, { content: cur.content + d.content });
        },
      );
      patch(side, { streaming: false, turnId: r.completionId || get().answers?.[side].turnId || null });
    } catch (err) {
      patch(side, { streaming: false, error: (err as Error).message });
    }
  };
}

/**
 * Whether both answers have ended without an error. An answer's id arrives with its first token,
 * but the turn is recorded when it ends: rating one still streaming would find no turn.
 */
export function bothComplete(answers: Record<Side, CompareAnswer>): boolean {
  return (['a', 'b'] as const).every((s) => !answers[s].streaming && !answers[s].error);
}

/** Records the pick: 👍 on the picked answer, 👎 on the other. */
async function pick(api: ApiClient, set: SetCompare, get: GetCompare, side: Side): Promise<void> {
  const answers = get().answers;
  if (!answers) return;
  const other: Side = side === 'a' ? 'b' : 'a';
  const win = answers[side].turnId;
  const lose = answers[other].turnId;
  if (!win || !lose || !bothComplete(answers)) {
    set({ pickMessage: 'Both answers must be complete before one can be picked.' });
    return;
  }
  try {
    await api.feedback(win, { rating: 'up' });
    await api.feedback(lose, { rating: 'down' });
    set({ picked: side, pickMessage: `Recorded: 👍 on ${side.toUpperCase()}, 👎 on ${other.toUpperCase()}. Both will train.` });
  } catch (err) {
    set({ pickMessage: `The pick was not recorded: ${(err as Error).message}` });
  }
}
