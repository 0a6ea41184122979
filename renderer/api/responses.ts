/**
 * The type of each route's JSON answer, by route name. The route table's `ResponseOf` cannot give
 * these yet (its `json()` helper widens every schema to z.ZodType, so ResponseOf is `unknown`; see
 * renderer/CONTRACT-REQUESTS.md), so they are inferred here from the same schemas the table uses.
 * responses.test.ts checks that this covers exactly the table's JSON routes.
 */
import type { z } from 'zod';
import type { ApiKeyResponseSchema, Health, Info, Settings } from '../../main/protocol/app.js';
import type { CheckpointList, ExportResponse, PinResponseSchema, RollbackResponse } from '../../main/protocol/checkpoints.js';
import type { ModelList } from '../../main/protocol/openai.js';
import type {
  FeedbackResponse,
  SessionDeletedSchema,
  SessionDetail,
  SessionEndResponseSchema,
  SessionInfo,
  SessionList,
  TurnList,
  TurnView,
} from '../../main/protocol/sessions.js';
import type { StepRecord, TrainingConfig, TrainingStatus } from '../../main/protocol/training.js';

export interface Responses {
  health: Health;
  'models.list': ModelList;
  feedback: FeedbackResponse;
  info: Info;
  'settings.get': Settings;
  'settings.update': Settings;
  'settings.apiKey': z.infer<typeof ApiKeyResponseSchema>;
  'training.status': TrainingStatus;
  'training.config.get': TrainingConfig;
  'training.config.update': TrainingConfig;
  'training.pause': TrainingStatus;
  'training.resume': TrainingStatus;
  'checkpoints.list': CheckpointList;
  'checkpoints.rollback': RollbackResponse;
  'checkpoints.pin': z.infer<typeof PinResponseSchema>;
  'checkpoints.export': ExportResponse;
  metrics: { object: 'list'; data: StepRecord[] };
  'sessions.list': SessionList;
  'sessions.get': SessionDetail;
  'sessions.update': SessionInfo;
  'sessions.delete': z.infer<typeof SessionDeletedSchema>;
  'sessions.end': z.infer<typeof SessionEndResponseSchema>;
  'turns.list': TurnList;
  'turns.get': TurnView;
}

export type JsonRoute = keyof Responses;

/** The routes above, as a value (for the test that compares them with the table). */
export const JSON_ROUTES = [
  'health',
  'models.list',
  'feedback',
  'info',
  'settings.get',
  'settings.update',
  'settings.apiKey',
  'training.status',
  'training.config.get',
  'training.config.update',
  'training.pause',
  'training.resume',
  'checkpoints.list',
  'checkpoints.rollback',
  'checkpoints.pin',
  'checkpoints.export',
  'metrics',
  'sessions.list',
  'sessions.get',
  'sessions.update',
  'sessions.delete',
  'sessions.end',
  'turns.list',
  'turns.get',
] as const satisfies readonly JsonRoute[];

// Every key of Responses is listed above (a missing one does not compile).
type Missing = Exclude<JsonRoute, (typeof JSON_ROUTES)[number]>;
export const NONE_MISSING: [Missing] extends [never] ? true : Missing = true;
