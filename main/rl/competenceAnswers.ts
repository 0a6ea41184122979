import { greedyAlongReferences, greedyContinuations, type LoraAdapter, type Model } from '../engine/index.js';

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

/** Greedy answers of a policy (null adapter: the base model), decoded together in one batch. */
export async function greedyAnswers(
  model: Model,
  adapter: LoraAdapter | null,
  prompts: ReadonlyArray<readonly number[]>,
  o: AnswerOptions,
): Promise<GreedyAnswers> {
  const ids = await greedyContinuations(
    model.lm,
    prompts.map((p) => ({ ids: p, maxNewTokens: o.maxTokens })),
    { stopTokenIds: model.generation.eosTokenIds, adapter },
  );
  return { ids, generated: prompts.length };
}

/**
 * Greedy answers of a policy, given another policy's greedy answers to the same prompts: only the
 * answers that part from the reference are generated, from the first token where they do, on the
 * keys and values of the teacher-forced pass that found it (greedyAlongReferences). Exact, and far
 * cheaper than decoding every answer when an update changes few of them.
 */
export async function greedyAnswersLike(
  model: Model,
  adapter: LoraAdapter | null,
  prompts: ReadonlyArray<readonly number[]>,
  reference: ReadonlyArray<readonly number[]>,
  o: AnswerOptions,
): Promise<GreedyAnswers> {
  if (reference.length !== prompts.length) throw new Error(`${reference.length} reference answers for ${prompts.length} prompts`);
  const r = await greedyAlongReferences(
    model.lm,
    prompts.map((p, i) => ({ promptIds: p, referenceIds: reference[i], maxTokens: o.maxTokens })),
    { stopTokenIds: model.generation.eosTokenIds, adapter },
  );
  return { ids: r.ids, generated: r.diverged };
}
