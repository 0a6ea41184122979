/**
 * The shapes of the core's routes, as the app uses them. Existing shapes are imported from the
 * contract in main/protocol/; the routes planned in issue 10 that are not there yet are declared
 * here with the names issue 10 fixes, and become re-exports of main/protocol/api.ts once it lands
 * (see renderer/CONTRACT-REQUESTS.md).
 */
import type { CheckpointInfo, StepMetrics, TrainingStatus } from '../../main/protocol/training.js';
import type { WireMessage } from '../../main/protocol/openai.js';

export type {
  CheckpointInfo,
  FeedbackRequest,
  StepMetrics,
  TrainingConfig,
  TrainingConfigPatch,
  TrainingStatus,
  TrainMethod,
} from '../../main/protocol/training.js';
export type { ApiErrorBody, ChatCompletionChunk, FinishReason, WireMessage } from '../../main/protocol/openai.js';

/** Where the server says a turn's feedback is on its way to the live model. */
export type ReceiptStage = 'none' | 'queued' | 'judged' | 'trained' | 'live' | 'not_trained';

export interface Receipt {
  stage: ReceiptStage;
  /** The judge's (or the user's) score: +1, −1, 0. */
  score: number | null;
  /** The hint the judge extracted or the user typed. */
  hint: string | null;
  /** The optimizer step that trained on the turn. */
  step: number | null;
  /** The checkpoint that step wrote. */
  checkpoint_id: string | null;
  /** The adapter version that made it live. */
  version: number | null;
  /** Why it was not trained (stage not_trained). */
  reason: string | null;
}

export interface TurnFeedback {
  rating: 'up' | 'down' | null;
  hint: string | null;
  updated_at: number;
}

export interface TurnJudgement {
  kind: string;
  judge: string;
  score: number | null;
  hint: string | null;
  votes: unknown;
  created_at: number;
}

export interface TurnSample {
  kind: string;
  reward: number | null;
  reward_source: string | null;
  hint: string | null;
  hint_source: string | null;
  adapter_version: number;
  status: string;
  drop_reason: string | null;
  step: number | null;
}

/** One recorded turn: what was asked and answered, what followed and what it taught. */
export interface TurnView {
  id: string;
  type: 'main' | 'side' | string;
  session_id: string | null;
  created_at: number;
  completed_at?: number | null;
  adapter_version: number;
  messages: WireMessage[];
  response: string;
  reasoning: string | null;
  tool_calls: unknown;
  finish_reason: string;
  prompt_tokens: number;
  completion_tokens: number;
  next_state: { role: string; text: string } | null;
  closed?: boolean;
  learn_note: string | null;
  feedback: TurnFeedback | null;
  judgements: TurnJudgement[];
  samples: TurnSample[];
  receipt?: Receipt;
}

export interface SessionSummary {
  id: string;
  title?: string | null;
  created_at: number | null;
  last_seen_at?: number | null;
  ended_at: number | null;
  end_reason: string | null;
  turns?: number;
  main_turns?: number;
}

export interface SessionDetail extends Omit<SessionSummary, 'turns'> {
  turns: TurnView[];
}

export interface TurnsPage {
  data: TurnView[];
  has_more: boolean;
}

/** GET /api/turns filters; a field left undefined is not sent. */
export interface TurnFilter {
  has_feedback?: boolean;
  min_reward?: number;
  max_reward?: number;
  trained?: boolean;
  session_id?: string;
  limit?: number;
  /** A turn id: the page before it (newest first). */
  before?: string;
}

export interface CoreInfo {
  version: string;
  model: { name: string; dir: string; architecture: string; parameters: number; context_length: number; backend: string };
  memory: { rss_bytes: number };
  data_dir: string;
  base_url: string;
  served_model_name: string;
  api_key_set: boolean;
  /** The provider entry to paste into ~/.openclaw/openclaw.json. */
  openclaw_provider: unknown;
}

export interface CoreSettings {
  model_dir: string;
  backend: string;
  data_dir: string;
  /** True when a saved setting waits for the next start. */
  restart_required: boolean;
}

export type SettingsPatch = Partial<Pick<CoreSettings, 'model_dir' | 'backend'>>;

export interface Competence {
  accuracy: number;
  n: number;
  held_back: boolean;
  reason: string | null;
}

export interface CheckpointRow extends CheckpointInfo {
  competence?: Competence | null;
}

export interface CheckpointList {
  live_checkpoint: string | null;
  adapter_version: number;
  data: CheckpointRow[];
}

export interface MetricsRow extends StepMetrics {
  step: number;
  created_at: number;
  adapter_version: number;
  checkpoint_id: string | null;
  skipped: boolean;
  skip_reason: string | null;
}

export type ExportFormat = 'peft' | 'gguf';

export interface ExportResult {
  checkpoint: string;
  format?: ExportFormat;
  dir?: string;
  files: string[];
}

export interface RollbackResult {
  checkpoint: string;
  adapter_version: number;
}

export interface FeedbackResult {
  completion_id: string;
  rating: 'up' | 'down' | null;
  hint: string | null;
  trainable: boolean;
}

export interface Health {
  status: 'ok' | 'shutting_down' | string;
  model: string;
}

export type TrainingStatusView = TrainingStatus;
