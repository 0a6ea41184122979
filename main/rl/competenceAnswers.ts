import { greedyContinuations, greedyTokens, type LoraAdapter, type Model } from '../engine/index.js';

/** A policy's greedy answers to the competence prompts: token ids (a final stop token included). */
export interface GreedyAnswers {
  ids: number[][];
  /** Answers that had to be generated (the rest were the reference's, unchanged). */
  generated: number;
}

export interface AnswerOptions {
  /** Tokens an answer may have. */
  maxTokens: number;
}

/** The text of an answer as the checks read it: special tokens and reasoning left out. */
export function answerText(model: Model, ids: readonly number[]): string {
  const eos = new Set(model.generation.eosTokenIds);
  const body = ids.length && eos.has(ids[ids.length - 1]) ? ids.slice(0, -1) : ids;
  return model.tokenizer
    .decode(body, { skipSpecialTokens: true })
    .replace(/<think>[\s\S]*?(<\/think>|$)/g, '')
    .trim();
}

/** Greedy answers after each prompt that start with the given prefixes (none: from scratch), decoded together. */
async function completeAnswers(
  model: Model,
  adapter: LoraAdapter | null,
  prompts: ReadonlyArray<readonly number[]>,
  prefixes: ReadonlyArray<readonly number[]>,
  o: AnswerOptions,
): Promise<number[][]> {
  const eos = model.generation.eosTokenIds;
  const ended = (p: readonly number[]) => (p.length > 0 && eos.includes(p[p.length - 1])) || p.length >= o.maxTokens;
  const open = prompts.map((_, i) => i).filter((i) => !ended(prefixes[i]));
  const tails = await greedyContinuations(
    model.lm,
    open.map((i) => ({ ids: [...prompts[i], ...prefixes[i]], maxNewTokens: o.maxTokens - prefixes[i].length })),
    { stopTokenIds: eos, adapter },
  );
  const out = prefixes.map((p) => [...p]);
  open.forEach((i, k) => out[i].push(...tails[k]));
  return out;
}

/** Greedy answers of a policy (null adapter: the base model), decoded together in one batch. */
export async function greedyAnswers(
  model: Model,
  adapter: LoraAdapter | null,
  prompts: ReadonlyArray<readonly number[]>,
  o: AnswerOptions,
): Promise<GreedyAnswers> {
  return { ids: await completeAnswers(model, adapter, prompts, prompts.map(() => []), o), generated: prompts.length };
}

/**
 * Greedy answers of a policy, given another policy's greedy answers to the same prompts. One
 * teacher-forced pass reads each reference answer under the new policy: where the new policy's
 * most likely token is the reference's at every position, its greedy answer *is* the reference
 * answer (greedy decoding is a function of those argmaxes). Only answers that diverge are
 * generated, from the first token where they do. Exact, and far cheaper than decoding every answer
 * when an update changes few of them.
 */
export async function greedyAnswersLike(
  model: Model,
  adapter: LoraAdapter | null,
  prompts: ReadonlyArray<readonly number[]>,
  reference: ReadonlyArray<readonly number[]>,
  o: AnswerOptions,
): Promise<GreedyAnswers> {
  if (reference.length !== prompts.length) throw new Error(`${reference.length} reference answers for ${prompts.length} prompts`);
  const usable = prompts.map((_, i) => i).filter((i) => reference[i].length > 0);
  const picked = await greedyTokens(
    model.lm,
    usable.map((i) => ({ promptIds: prompts[i], responseIds: reference[i] })),
    { adapter },
  );
  const prefixes: Array<number[] | null> = prompts.map(() => []);
  usable.forEach((i, k) => {
    const ref = reference[i];
    const j = picked[k].findIndex((id, pos) => id !== ref[pos]);
    prefixes[i] = j < 0 ? null : [...ref.slice(0, j), picked[k][j]];
  });
  const diverged = prompts.map((_, i) => i).filter((i) => prefixes[i] !== null);
  const decoded = await completeAnswers(
    model,
    adapter,
    diverged.map((i) => prompts[i]),
    diverged.map((i) => prefixes[i]!),
    o,
  );
  const ids = reference.map((r) => [...r]);
  diverged.forEach((i, k) => (ids[i] = decoded[k]));
  return { ids, generated: diverged.length };
}
