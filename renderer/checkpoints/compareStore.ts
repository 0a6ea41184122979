/**
 * Compare: one prompt answered by two versions side by side; the user picks the better one and the
 * verdict is recorded as feedback (👍 on the better, 👎 on the other; 👎 on both when both are bad;
 * nothing when they are about the same), so it trains like any rating. Each side is its own
 * one-turn session (so neither answer becomes the other's next state), named for Data and kept out
 * of Chat's list (ui/compareSessions.ts).
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';
import { COMPARE_PREFIX, compareTitle } from '../ui/compareSessions.js';

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

/** What the user says of the two answers: one is better, they are about the same, or both are bad. */
export type Verdict = Side | 'same' | 'both_bad';

export interface CompareState {
  prompt: string;
  answers: Record<Side, CompareAnswer> | null;
  picked: Verdict | null;
  pickMessage: string | null;
  running: boolean;

  setPrompt(text: string): void;
  run(adapterA: string, adapterB: string): Promise<void>;
  pick(verdict: Verdict): Promise<void>;
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
        const session = `${COMPARE_PREFIX}${newId()}`;
        set({ answers: { a: blank(adapterA), b: blank(adapterB) }, picked: null, pickMessage: null, running: true });
        await Promise.all([ask('a', adapterA, prompt, session), ask('b', adapterB, prompt, session)]);
        set({ running: false });
        await nameSessions(api, get().answers, prompt, session);
      },

      pick: (verdict) => pick(api, set, get, verdict),

      reset() {
        set({ answers: null, picked: null, pickMessage: null });
      },
    };
  });
}

/** Streams one side's answer into the store; a failure stays on that side. */
function asker(api: ApiClient, set: SetCompare, get: GetCompare) {
  const patch = (side: Side, p: Partial<CompareAnswer>) =>
    set((s) => (s.answers ? { answers: { ...s.answers, [side]: { ...s.answers[side], ...p } } } : {}));
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

/**
 * The same version on both sides ('live' is the live checkpoint, or the base model): there is
 * nothing to compare. `liveId`: the live checkpoint, null for the base model.
 */
export function sameVersion(adapterA: string, adapterB: string, liveId: string | null): boolean {
  const resolve = (x: string) => (x === 'live' ? (liveId ?? 'base') : x);
  return resolve(adapterA) === resolve(adapterB);
}

/** Both answers are the same text: neither can be better. */
export function identicalAnswers(answers: Record<Side, CompareAnswer>): boolean {
  return answers.a.content.trim() === answers.b.content.trim();
}

/** Names both sides' sessions so that Data lists them readably; a failure leaves the ids (nothing else depends on it). */
async function nameSessions(api: ApiClient, answers: Record<Side, CompareAnswer> | null, prompt: string, session: string): Promise<void> {
  if (!answers) return;
  for (const side of ['a', 'b'] as const) {
    if (!answers[side].turnId) continue;
    await api.renameSession(`${session}-${side}`, compareTitle(answers.a.version, answers.b.version, side, prompt)).catch(() => undefined);
  }
}

/**
 * Records the verdict: 👍 on the better answer and 👎 on the other; 👎 on both when both are bad;
 * nothing when they are about the same (no preference to learn). A winner between identical
 * answers is refused: it would train 👍 and 👎 on the same text.
 */
async function pick(api: ApiClient, set: SetCompare, get: GetCompare, verdict: Verdict): Promise<void> {
  const answers = get().answers;
  if (!answers) return;
  const a = answers.a.turnId;
  const b = answers.b.turnId;
  if (!a || !b || !bothComplete(answers)) {
    set({ pickMessage: 'Both answers must be complete before one can be picked.' });
    return;
  }
  if ((verdict === 'a' || verdict === 'b') && identicalAnswers(answers)) {
    set({ pickMessage: 'The two answers are the same text, so neither is better: choose “About the same” or “Both bad”.' });
    return;
  }
  try {
    if (verdict === 'same') {
      // An earlier verdict on these answers rated them: take those ratings back.
      if (get().picked !== null && get().picked !== 'same') {
        await api.feedback(a, { rating: null });
        await api.feedback(b, { rating: null });
      }
      set({ picked: verdict, pickMessage: 'Noted as about the same: neither answer is rated, so nothing trains from this comparison.' });
      return;
    }
    if (verdict === 'both_bad') {
      await api.feedback(a, { rating: 'down' });
      await api.feedback(b, { rating: 'down' });
      set({ picked: verdict, pickMessage: 'Recorded: 👎 on A and on B. Both will train.' });
      return;
    }
    const other: Side = verdict === 'a' ? 'b' : 'a';
    await api.feedback(answers[verdict].turnId!, { rating: 'up' });
    await api.feedback(answers[other].turnId!, { rating: 'down' });
    set({ picked: verdict, pickMessage: `Recorded: 👍 on ${verdict.toUpperCase()}, 👎 on ${other.toUpperCase()}. Both will train.` });
  } catch (err) {
    set({ pickMessage: `The pick was not recorded: ${(err as Error).message}` });
  }
}
