/**
 * The shapes the app exchanges with the core, all from the contract in main/protocol/ (zod schemas
 * and the route table); this module only gathers the names the renderer uses.
 */
import type { QueryOf, RequestOf, ResponseOf } from '../../main/protocol/api.js';

export type {
  CheckpointInfo,
  CheckpointList,
  Competence,
  ExportResponse,
  RollbackResponse,
  RollbackVersion,
} from '../../main/protocol/checkpoints.js';
export type { Health, Info, Settings, SettingsPatch } from '../../main/protocol/app.js';
export type { ApiErrorBody, ChatCompletionChunk, FinishReason, WireMessage } from '../../main/protocol/openai.js';
export type {
  FeedbackRequest,
  FeedbackResponse,
  Receipt,
  ReceiptStage,
  SessionDetail,
  SessionInfo,
  TurnList,
  TurnQuery,
  ExportQuery,
  TurnView,
} from '../../main/protocol/sessions.js';
export type {
  StepMetrics,
  StepRecord,
  TrainingConfig,
  TrainingConfigPatch,
  TrainingState,
  TrainingStatus,
  TrainMethod,
} from '../../main/protocol/training.js';
export type { QueryOf, RequestOf, ResponseOf };

export type ExportFormat = NonNullable<RequestOf<'checkpoints.export'>['format']>;
export type TurnFeedback = NonNullable<import('../../main/protocol/sessions.js').TurnView['feedback']>;
