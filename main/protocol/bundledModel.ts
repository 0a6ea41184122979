/**
 * The training settings the bundled clawloop-mini recommends (its `clawloop_training.json`; why
 * each value: scripts/default-model/modelSpec.ts and docs/learning-loop.md §7). Pure data, so the
 * API examples and the model recipe share one copy.
 */
export const CLAWLOOP_MINI_TRAINING = {
  learning_rate: 2.5e-3,
  w_rl: 0.25,
  batch_size: 4,
  /** Rank 4, not 16: without a gate its updates lost 1.7 points of accuracy on average, rank 16's 9.4 (docs/learning-loop.md §7). */
  lora_rank: 4,
  lora_alpha: 8,
  ppo_epochs: 3,
  rl_skip_confident: 0.9,
  kl_coef: 0.1,
  /** The OPD teacher is the policy with the hint (self-distillation), not the base model with it. */
  teacher: 'policy',
  /** One more answer by the policy to each hinted turn, scored by the hinted teacher (docs/learning-loop.md §7). */
  policy_rollouts: 1,
  /** A judge's hint trains only when it explains the complaint: its judge reads "a bare number looks rude" as "be brief" (docs/learning-loop.md §7). */
  hint_min_gap: 0.05,
  /** Every check reads the whole competence set (240 prompts): a loss off a fixed sample of 100 went unseen (docs/learning-loop.md §7). */
  competence_prompts: 240,
  /** Its own judge, trained on from it (scripts/default-model/modelSpec.ts, Recipe.judge). */
  judge: { kind: 'model', dir: 'judge' },
} as const;

/** A prompt a new conversation offers, with the number a right answer ends with (so it can be measured). */
export interface ExamplePrompt {
  prompt: string;
  answer: number;
}

/**
 * The prompts a new conversation offers on first launch: ones clawloop-mini answers right, greedy
 * and sampled at its generation_config.json (temperature 0.7, top_p 0.95). Checked greedy by
 * test/defaultModel/examplePrompts.test.ts; sampled, with the candidates that lost, by
 * `node dist/scripts/default-model/examplePrompts.js` (10/10 each when chosen; "Convert 2 km to
 * meters." was 1/10, "A box holds 12 eggs. How many eggs are in 4 boxes?" 0/10).
 */
export const CLAWLOOP_MINI_EXAMPLE_PROMPTS: readonly ExamplePrompt[] = [
  { prompt: 'How many minutes are in 3 hours?', answer: 180 },
  { prompt: 'Convert 2 kilometers to meters.', answer: 2000 },
  { prompt: 'Leo has 25 marbles. He buys 8 more. How many marbles does he have now?', answer: 33 },
];
