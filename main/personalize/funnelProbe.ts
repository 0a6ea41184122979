/**
 * Gathers a run's funnel (funnel.ts) from the running ClawLoop, after the conversation: what the
 * judges made of each turn (GET /api/sessions/{id}), and the hint ceiling, sampled as side turns.
 */
import { withHint } from '../engine/text/index.js';
import type { BenchClient } from './benchClient.js';
import type { CeilingFunnel, TurnRecord } from './funnel.js';
import { checkResponse, type Persona } from './persona.js';

/** A main turn as the conversation saw it: where it was, what was asked, and the user's truth. */
export interface TalkedTurn {
  sessionId: string;
  completionId: string;
  /** The conversation up to the answer (the turn's prompt). */
  messages: Array<{ role: 'user' | 'assistant'; content: string }>;
  ok: boolean;
  violated: string | null;
}

/** Distinct hints the ceiling is measured with, at most (the first ones of the run). */
export const CEILING_HINTS = 8;
/** Answers sampled per hint and measurement. */
export const CEILING_SAMPLES_PER_HINT = 2;

/** Each talked turn with the server's PRM score and hint for it. */
export async function turnRecords(client: BenchClient, talked: readonly TalkedTurn[]): Promise<Array<TurnRecord & TalkedTurn>> {
  const views = new Map<string, Awaited<ReturnType<BenchClient['session']>>['turns'][number]>();
  for (const id of new Set(talked.map((t) => t.sessionId))) for (const v of (await client.session(id)).turns) views.set(v.id, v);
  return talked.map((t) => {
    const v = views.get(t.completionId);
    const own = v?.samples.find((s) => s.response === 'turn');
    const judged = v?.judgements.find((j) => j.kind === 'hint')?.hint ?? null;
    return {
      ...t,
      prm: v?.judgements.find((j) => j.kind === 'prm')?.score ?? null,
      hint: own?.hint ?? judged,
      hintTrained: (own?.hint ?? null) !== null,
    };
  });
}

/**
 * The hint ceiling: the turns that violated a wish and got a hint (the first {@link CEILING_HINTS}
 * distinct hints), each prompt answered again with its hint appended as OPD's teacher reads it,
 * {@link CEILING_SAMPLES_PER_HINT} times with fixed seeds, by the served policy now; then, when
 * `withBase`, by the base model (made live by a rollback: call it last). Returns the share of
 * answers that satisfy every rule of the persona.
 */
export async function measureCeiling(
  client: BenchClient,
  persona: Persona,
  records: ReadonlyArray<TurnRecord & TalkedTurn>,
  o: { maxTokens: number; withBase: boolean },
): Promise<CeilingFunnel> {
  const seen = new Set<string>();
  const picked = records.filter((r) => !r.ok && r.hint !== null && !seen.has(r.hint) && seen.add(r.hint)).slice(0, CEILING_HINTS);
  const samples = picked.length * CEILING_SAMPLES_PER_HINT;
  if (!picked.length) return { hints: 0, samples: 0, base: null, trained: null };
  const comply = async (): Promise<number> => {
    const answers = await Promise.all(
      picked.flatMap((r) =>
        Array.from({ length: CEILING_SAMPLES_PER_HINT }, (_, k) =>
          client.sideTurn(withHint(r.messages, r.hint!), { seed: 7000 + k, maxTokens: o.maxTokens }),
        ),
      ),
    );
    return answers.filter((a) => checkResponse(persona, a).ok).length / answers.length;
  };
  const trained = await comply();
  let base: number | null = null;
  if (o.withBase) {
    await client.rollback('base');
    base = await comply();
  }
  return { hints: picked.length, samples, base, trained };
}
