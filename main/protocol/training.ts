/**
 * The training configuration and the /api training and checkpoint payloads (pure types and zod
 * schemas: the UI may import this module).
 */
import { z } from 'zod';

export const TRAIN_METHODS = ['off', 'rl', 'opd', 'combine'] as const;
export type TrainMethod = (typeof TRAIN_METHODS)[number];
const LORA_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;

export const JudgeSpecSchema = z.discriminatedUnion('kind', [
  /** The served model with its adapter off (default). */
  z.object({ kind: z.literal('base') }).strict(),
  /**
   * Another local model folder. A relative path is read from the served model's folder: a model
   * may ship its own judge there (the bundled clawloop-mini's is `judge`).
   */
  z.object({ kind: z.literal('model'), dir: z.string().min(1) }).strict(),
  /** An external OpenAI-compatible endpoint. */
  z
    .object({
      kind: z.literal('endpoint'),
      url: z
        .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL of an OpenAI-compatible server' })
        .describe('the base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1'),
      api_key: z.string().nullable().optional(),
      model: z.string().min(1),
      timeout_s: z
        .number()
        .int()
        .min(1)
        .max(3600)
        .optional()
        .describe(
          "seconds one judge call may take, connecting, the answer's headers and its body together (default 120); past it the call fails with an error event and the turn is tried again",
        ),
    })
    .strict(),
]);
export type JudgeSpec = z.infer<typeof JudgeSpecSchema>;

/** Every knob of the learning loop; defaults in DEFAULT_TRAINING_CONFIG (the reference's, except where docs/learning-loop.md says). */
export const TrainingConfigSchema = z
  .object({
    /** off: record only · rl: PRM rewards · opd: hindsight hints · combine: both (default). */
    method: z.enum(TRAIN_METHODS),
    /** Samples per optimizer step. Reference 16; default 4 so a desktop sees steps early. */
    batch_size: z.number().int().min(1).max(1024),
    /** AdamW learning rate. Reference (LoRA) 1e-4. */
    learning_rate: z.number().gt(0).max(1),
    weight_decay: z.number().min(0).max(1),
    max_grad_norm: z.number().min(0),
    /** LoRA rank, alpha, targets and dropout; changeable only while the live policy is the base model. */
    lora_rank: z.number().int().min(1).max(512),
    lora_alpha: z.number().gt(0),
    lora_targets: z.array(z.enum(LORA_TARGETS)).min(1),
    lora_dropout: z.number().min(0).lt(1),
    /** Judge votes m; null = the method's default (3 for rl, 1 otherwise). */
    votes: z.number().int().min(1).max(16).nullable(),
    judge_temperature: z.number().min(0).max(2),
    judge_max_tokens: z.number().int().min(16).max(8192),
    judge: JudgeSpecSchema,
    /** Weights of the RL and OPD advantage terms (combine). */
    w_rl: z.number().min(0),
    w_opd: z.number().min(0),
    /** Clip OPD advantages to [−C, C]; null = off (reference code). */
    opd_clip: z.number().gt(0).nullable(),
    rl_skip_confident: z
      .number()
      .gt(0)
      .max(1)
      .nullable()
      .describe(
        'the RL reward skips response tokens the model sampled with at least this probability (it was sure of them: mostly competence, like the digits of a sum, not style); null: the reward pushes every token',
      ),
    ppo_epochs: z
      .number()
      .int()
      .min(1)
      .max(8)
      .describe(
        'optimizer passes over each batch (PPO epochs): later passes reuse the rollout log-probs, so the ratio clip (eps_low, eps_high) bounds how far they move each token; 1: one step per batch, as the reference',
      ),
    /** OPD as a per-token advantage (default) or as top-K reverse KL with a tail bin. */
    opd_loss: z.enum(['advantage', 'topk_reverse_kl']),
    opd_top_k: z.number().int().min(1).max(64),
    /** Longest accepted hint (default) or the hint whose teacher agrees most with the student (top-4 overlap). */
    hint_selection: z.enum(['longest', 'overlap']),
    /** The OPD teacher: the frozen base model (default) or the current policy (self-distillation). */
    teacher: z.enum(['base', 'policy']),
    policy_rollouts: z
      .number()
      .int()
      .min(0)
      .max(4)
      .describe(
        "answers the policy itself writes again for each hinted turn whose hint passes rollout_min_gap (the turn's own prompt, sampled as serving samples), each trained on as one more OPD sample scored by the teacher: more of the policy's own answers judged under the same hint, so the styles it would fall back to are pushed as well; 0: none",
      ),
    rollout_min_gap: z
      .number()
      .min(0)
      .max(10)
      .describe(
        "a judge's hint is rolled out (policy_rollouts) only when it explains the complaint: the turn's own OPD sample pushes its answer down, its mean advantage (log π_teacher − log π_old) at most minus this many nats per token. A hint the answer already satisfies would reward the policy's answers for what the user disliked. Meant for teacher: policy (with the base model as teacher the mean also carries the adapter's drift). A typed hint is always rolled out; 0: every hint is",
      ),
    hint_min_gap: z
      .number()
      .min(0)
      .max(10)
      .nullable()
      .describe(
        'a judge\'s hint trains the turn\'s own OPD sample only when it explains the complaint, as rollout_min_gap tests it: the hinted teacher pushes the turn\'s answer down, its mean advantage (log π_teacher − log π_old) at most minus this many nats per token. A hint the answer already satisfies ("be brief" after "a bare number looks rude") would push up the answer the user disliked; failing the test, the turn trains on its reward alone and the hint is kept with the judge\'s record. A typed hint always trains; null: every hint does, as the reference',
      ),
    /** KL coefficient to the base model; null = the method's default (0.02 for rl, 0 otherwise). */
    kl_coef: z.number().min(0).nullable(),
    entropy_coef: z.number().min(0),
    eps_low: z.number().gt(0).lt(1),
    eps_high: z.number().gt(0),
    feedback_wait_s: z
      .number()
      .int()
      .min(0)
      .max(600)
      .describe(
        'seconds the trainer waits after a 👍/👎 without a hint before it takes the answer for training, so a hint typed just after the rating joins it as one piece of feedback (a hint sent with or after the rating ends the wait); 0: a rating is taken at once',
      ),
    /** Drop samples generated more than this many adapter versions ago; null = keep all. */
    max_staleness: z.number().int().min(0).nullable(),
    /** Checkpoints kept besides pinned ones. */
    keep_checkpoints: z.number().int().min(1).max(100000),
    competence_gate: z
      .boolean()
      .describe(
        "check every new checkpoint on the model folder's held-out competence set (clawloop_competence.jsonl) before it goes live; false: every checkpoint goes live unchecked. Without a competence set the gate is off whatever this says (the status says so)",
      ),
    competence_margin: z
      .number()
      .min(0)
      .max(1)
      .describe(
        "how far (a fraction: 0.03 = 3 points) a checkpoint's accuracy may fall below the best live policy's and still go live; 1 lets everything through",
      ),
    competence_prompts: z
      .number()
      .int()
      .min(1)
      .max(100000)
      .describe('held-out prompts a check answers (a fixed sample of the set, the same for every checkpoint); more is slower but finer'),
    competence_family_margin: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe(
        "how far (a fraction: 0.15 = 15 points) a checkpoint's accuracy on one task family of the competence set (the prompts' \"family\") may fall below the base model's on the same prompts and still go live: a loss the overall margin averages away when it falls on one task; null: families are not checked. A set without families is not checked per family",
      ),
    competence_max_tokens: z
      .number()
      .int()
      .min(8)
      .max(8192)
      .describe("tokens a check's answer may have (greedy decoding); an answer cut short is checked as it is"),
  })
  .strict();
export type TrainingConfig = z.infer<typeof TrainingConfigSchema>;

/** PUT /api/training/config body: any subset of the fields. */
export const TrainingConfigPatchSchema = TrainingConfigSchema.partial().strict();
export type TrainingConfigPatch = z.infer<typeof TrainingConfigPatchSchema>;

export const DEFAULT_TRAINING_CONFIG: TrainingConfig = {
  method: 'combine',
  batch_size: 4,
  learning_rate: 1e-4,
  weight_decay: 0.1,
  max_grad_norm: 1.0,
  lora_rank: 8,
  lora_alpha: 16,
  lora_targets: [...LORA_TARGETS],
  lora_dropout: 0,
  votes: null,
  judge_temperature: 0.6,
  judge_max_tokens: 256,
  judge: { kind: 'base' },
  w_rl: 1,
  w_opd: 1,
  opd_clip: null,
  rl_skip_confident: null,
  ppo_epochs: 1,
  opd_loss: 'advantage',
  opd_top_k: 8,
  hint_selection: 'longest',
  teacher: 'base',
  policy_rollouts: 0,
  rollout_min_gap: 0.05,
  hint_min_gap: null,
  feedback_wait_s: 20,
  kl_coef: null,
  entropy_coef: 0,
  eps_low: 0.2,
  eps_high: 0.28,
  max_staleness: 8,
  keep_checkpoints: 20,
  competence_gate: true,
  competence_margin: 0.03,
  competence_prompts: 48,
  competence_family_margin: 0.15,
  competence_max_tokens: 160,
};

/** The fields that change the LoRA shape (only while the live policy is the base model). */
export const LORA_SHAPE_FIELDS = ['lora_rank', 'lora_alpha', 'lora_targets', 'lora_dropout'] as const;

/** m for a method when `votes` is null: 3 for binary RL, 1 otherwise (docs/learning-loop.md §2). */
export function effectiveVotes(c: TrainingConfig): number {
  return c.votes ?? (c.method === 'rl' ? 3 : 1);
}

/** KL coefficient when `kl_coef` is null: 0.02 for binary RL, 0 otherwise (docs/learning-loop.md §4). */
export function effectiveKlCoef(c: TrainingConfig): number {
  return c.kl_coef ?? (c.method === 'rl' ? 0.02 : 0);
}

/** Step metrics (docs/learning-loop.md §4), as stored and served by /api/metrics. */
export const StepMetricsSchema = z.object({
  loss: z.number(),
  pg_loss: z.number(),
  kl: z.number(),
  entropy: z.number(),
  reverse_kl: z.number(),
  clip_fraction: z.number(),
  ratio_mean: z.number(),
  /** mean |log π_θ − log π_old|: how far the trained policy has drifted from the rollout policy. */
  logprob_drift: z.number(),
  grad_norm: z.number(),
  learning_rate: z.number(),
  mean_reward: z.number().nullable(),
  samples: z.object({ rl: z.number().int(), opd: z.number().int(), both: z.number().int(), total: z.number().int() }),
  teacher_advantage: z.object({ mean: z.number(), std: z.number() }).nullable(),
  tokens: z.number().int(),
  step_ms: z.number(),
});
export type StepMetrics = z.infer<typeof StepMetricsSchema>;

/** A skipped step stores what it measured before it was skipped: any subset of the metrics. */
const StoredStepMetrics = StepMetricsSchema.partial();

/** One row of GET /api/metrics. */
export const StepRecordSchema = StoredStepMetrics.extend({
  step: z.number().int().min(1),
  created_at: z.number().int(),
  adapter_version: z.number().int().nullable(),
  checkpoint_id: z.string().nullable(),
  skipped: z.boolean(),
  skip_reason: z.string().nullable(),
});
export type StepRecord = z.infer<typeof StepRecordSchema>;

/** `stopping`: the core is shutting down and lets the step in progress finish first. */
export const TRAINING_STATES = ['off', 'starting', 'idle', 'judging', 'training', 'paused', 'error', 'stopping'] as const;
export type TrainingState = (typeof TRAINING_STATES)[number];

/** GET /api/training/status (and the body of pause / resume). */
export const TrainingStatusSchema = z.object({
  method: z.enum(TRAIN_METHODS),
  state: z.enum(TRAINING_STATES),
  queued_samples: z.number().int().min(0),
  /** Main turns with a next state or feedback that the trainer has not judged yet. */
  pending_turns: z.number().int().min(0).optional(),
  step: z.number().int().min(0),
  adapter_version: z.number().int().min(0),
  last_step: StoredStepMetrics.extend({ step: z.number().int(), skipped: z.boolean(), skip_reason: z.string().nullable() }).nullable(),
  /** What went wrong last (a judge that failed, a checkpoint that does not load); absent when all is well. */
  error: z.string().optional(),
  /** The competence gate: whether new checkpoints are checked before they go live, and why not when they are not. */
  competence_gate: z
    .object({
      on: z.boolean(),
      detail: z.string().describe('what a check does, or why the gate is off and how to turn it on'),
      reference_accuracy: z
        .number()
        .nullable()
        .describe('the accuracy a new checkpoint is compared with (the best live policy); null until first measured'),
      held_back: z.number().int().min(0).describe('checkpoints held back so far'),
    })
    .optional(),
});
export type TrainingStatus = z.infer<typeof TrainingStatusSchema>;
