/**
 * Checkpoints as the API serves them: the list, rollback, pin and export. Pure zod schemas and
 * inferred types: the UI imports this module.
 */
import { z } from 'zod';
import { StepMetricsSchema } from './training.js';

/**
 * How a checkpoint did on the held-out competence set before it could go live. `held_back`: it
 * scored too far below the best live checkpoint and was saved but not made live (`reason` says by
 * how much); the user can still make it live by hand.
 */
export const CompetenceSchema = z.object({
  accuracy: z.number().min(0).max(1),
  /** Prompts evaluated. */
  n: z.number().int().min(1),
  held_back: z.boolean(),
  reason: z.string().nullable(),
  /** Seconds the check took. */
  seconds: z.number().min(0),
});
export type Competence = z.infer<typeof CompetenceSchema>;

export const CheckpointInfoSchema = z.object({
  id: z.string(),
  step: z.number().int().min(1),
  adapter_version: z.number().int().min(1),
  /** The checkpoint training continued from (null: the base model). */
  parent_id: z.string().nullable(),
  created_at: z.number().int(),
  metrics: StepMetricsSchema,
  samples: StepMetricsSchema.shape.samples,
  pinned: z.boolean(),
  /** What the user named it, and their note on it (null: none); set with PATCH /api/checkpoints/{id}. */
  name: z.string().nullable(),
  note: z.string().nullable(),
  live: z.boolean(),
  /** null until checked (or when the competence gate is off). */
  competence: CompetenceSchema.nullable(),
});
export type CheckpointInfo = z.infer<typeof CheckpointInfoSchema>;

/**
 * A version a rollback issued: the same adapter as the checkpoint it names (or the base model),
 * served under a number of its own, so answers from before and after the rollback stay apart.
 */
export const RollbackVersionSchema = z.object({
  version: z.number().int().min(1),
  /** The checkpoint made live again (null: the base model). */
  checkpoint_id: z.string().nullable(),
  created_at: z.number().int(),
});
export type RollbackVersion = z.infer<typeof RollbackVersionSchema>;

export const CheckpointListSchema = z.object({
  object: z.literal('list'),
  /** The live checkpoint (null: the base model). */
  live_checkpoint: z.string().nullable(),
  adapter_version: z.number().int().min(0),
  data: z.array(CheckpointInfoSchema),
  /** Every version a rollback issued, oldest first: with `data`, every version an answer can name. */
  rollbacks: z.array(RollbackVersionSchema),
});
export type CheckpointList = z.infer<typeof CheckpointListSchema>;

export const RollbackResponseSchema = z.object({
  /** The checkpoint now live, or 'base'. */
  checkpoint: z.string(),
  /** The new adapter version it is served as. */
  adapter_version: z.number().int().min(1),
});
export type RollbackResponse = z.infer<typeof RollbackResponseSchema>;

export const PinRequestSchema = z
  .object({ pinned: z.boolean().default(true).describe('true keeps the checkpoint regardless of retention; false unpins it') })
  .strict();
export const PinResponseSchema = z.object({ checkpoint: z.string(), pinned: z.boolean() });

/** Longest checkpoint name and note, in characters: a name fits a table cell, a note a paragraph or two. */
export const CHECKPOINT_NAME_MAX = 60;
export const CHECKPOINT_NOTE_MAX = 2000;

export const CheckpointPatchSchema = z
  .object({
    name: z
      .string()
      .trim()
      .max(CHECKPOINT_NAME_MAX)
      .nullable()
      .optional()
      .describe(`what to call the checkpoint (at most ${CHECKPOINT_NAME_MAX} characters); null or "" clears it`),
    note: z
      .string()
      .trim()
      .max(CHECKPOINT_NOTE_MAX)
      .nullable()
      .optional()
      .describe(`a note on it (at most ${CHECKPOINT_NOTE_MAX} characters); null or "" clears it`),
  })
  .strict();
export type CheckpointPatch = z.input<typeof CheckpointPatchSchema>;
export const CheckpointLabelSchema = z.object({ checkpoint: z.string(), name: z.string().nullable(), note: z.string().nullable() });

export const EXPORT_FORMATS = ['peft', 'gguf'] as const;

export const ExportRequestSchema = z
  .object({
    format: z
      .enum(EXPORT_FORMATS)
      .default('peft')
      .describe(
        'peft: the adapter as a PEFT folder (transformers, PEFT, vLLM); gguf: the base model merged with the adapter, F32 GGUF (llama.cpp)',
      ),
    dir: z
      .string()
      .min(1)
      .optional()
      .describe(
        "where to write: a folder name inside the data folder's exports/ (default: the version as Checkpoints shows it, e.g. v2, or v2-<name> when it has a name; -copy-2… when taken), or an absolute path under a folder allowed with --export-dir",
      ),
  })
  .strict();
export type ExportRequest = z.input<typeof ExportRequestSchema>;

export const ExportResponseSchema = z.object({
  checkpoint: z.string(),
  format: z.enum(EXPORT_FORMATS),
  /** The absolute folder written. */
  dir: z.string(),
  files: z.array(z.string()),
});
export type ExportResponse = z.infer<typeof ExportResponseSchema>;
