/**
 * Every route ClawLoop serves, with the schema of its request and response: the one table the
 * server dispatches from (main/server/routeTable.ts adds a handler to each entry), docs/api.md is
 * generated from (scripts/docs/apiDocs.ts, `npm run docs:api`) and the UI's API client is typed by.
 * Pure data and zod schemas: the UI imports this module.
 */
import { z } from 'zod';
import type { RouteSpec } from './routeSpec.js';
import { ApiKeyRequestSchema, ApiKeyResponseSchema, HealthSchema, InfoSchema, SettingsPatchSchema, SettingsSchema } from './app.js';
import { SignInRequestSchema as SignInBody, SignInResponseSchema as SignedIn, SignOutResponseSchema as SignedOut } from './app.js';
import { CheckpointLabelSchema, CheckpointListSchema, CheckpointPatchSchema, RollbackResponseSchema } from './checkpoints.js';
import { ExportRequestSchema, ExportResponseSchema, PinRequestSchema, PinResponseSchema } from './checkpoints.js';
import { ChatCompletionChunkSchema, ChatCompletionRequestSchema, ChatCompletionSchema, ModelListSchema } from './openai.js';
import { ExportLineSchema, ExportQuerySchema, FeedbackRequestSchema, FeedbackResponseSchema, SessionDeletedSchema } from './sessions.js';
import {
  SessionDetailSchema,
  SessionEndRequestSchema,
  SessionEndResponseSchema,
  SessionListSchema,
  SessionQuerySchema,
} from './sessions.js';
import { SessionPatchSchema, TurnListSchema, TurnQuerySchema, TurnViewSchema } from './sessions.js';
import { StepRecordSchema, TrainingConfigPatchSchema, TrainingConfigSchema, TrainingStatusSchema } from './training.js';

export type { HttpMethod, ResponseSpec, RouteSpec } from './routeSpec.js';
export { pathParams, routePath } from './routeSpec.js';

const json = <S extends z.ZodType>(schema: S) => ({ kind: 'json', schema }) as const;
const id = 'the checkpoint id (e.g. step-000012), or base for the base model';
export const API = {
  health: {
    method: 'GET',
    path: '/healthz',
    aliases: ['/health'],
    summary: 'Liveness, requests running and queued. Never needs the API key.',
    auth: false,
    response: json(HealthSchema),
  },
  'models.list': {
    method: 'GET',
    path: '/v1/models',
    aliases: ['/models'],
    summary: 'The served model.',
    auth: true,
    response: json(ModelListSchema),
  },
  'chat.completions': {
    method: 'POST',
    path: '/v1/chat/completions',
    aliases: ['/chat/completions'],
    summary:
      'OpenAI chat completions, streamed or not. OpenClaw-RL metadata: X-Session-Id, X-Turn-Type (main|side), X-Session-Done. Answers carry x-clawloop-adapter-version and x-clawloop-completion-id headers.',
    auth: true,
    body: ChatCompletionRequestSchema,
    response: { kind: 'json_or_sse', schema: ChatCompletionSchema, chunk: ChatCompletionChunkSchema },
    errors: [429, 499, 500, 503, 507],
  },
  feedback: {
    method: 'POST',
    path: '/v1/feedback',
    aliases: ['/feedback'],
    summary: '👍/👎 and/or a hint on one answer. A field left out keeps its value; null clears it.',
    auth: true,
    body: FeedbackRequestSchema,
    response: json(FeedbackResponseSchema),
    errors: [409, 507],
  },
  events: {
    method: 'GET',
    path: '/api/events',
    summary:
      'Server-sent events of everything that happens (turns, feedback, judging, steps, checkpoints, live adapter, training state, errors). Resume with Last-Event-ID or ?since=ID.',
    auth: true,
    query: z.object({ since: z.coerce.number().int().min(0).optional().describe('resume after this event id') }).strict(),
    response: { kind: 'events' },
  },
  info: {
    method: 'GET',
    path: '/api/info',
    summary: 'The served model, its backend and memory, the data folder, and the OpenClaw provider entry.',
    auth: true,
    response: json(InfoSchema),
  },
  'settings.get': {
    method: 'GET',
    path: '/api/settings',
    summary: 'The model folder and backend ClawLoop starts with, and whether a restart is needed to apply them.',
    auth: true,
    response: json(SettingsSchema),
  },
  'settings.update': {
    method: 'PUT',
    path: '/api/settings',
    summary: 'Choose the model folder (checked now: config, weights, tokenizer) or backend for the next start.',
    auth: true,
    body: SettingsPatchSchema,
    response: json(SettingsSchema),
  },
  'settings.apiKey': {
    method: 'PUT',
    path: '/api/settings/api-key',
    summary:
      'Set, regenerate or turn off the API key, at once; a key set is stored for the next start, turning it off lasts until then (400 while --cors allows any page). Ends every browser session but the caller’s.',
    auth: true,
    body: ApiKeyRequestSchema,
    response: json(ApiKeyResponseSchema),
  },
  'auth.link': {
    method: 'GET',
    path: '/api/sign-in/{token}',
    summary:
      'The one-time link `clawloop serve` prints: starts a browser session (an HttpOnly, SameSite=Strict cookie with a session token, and a proof the page keeps in its storage); dies on use.',
    auth: false,
    response: json(SignedIn),
  },
  'auth.signIn': {
    method: 'POST',
    path: '/api/sign-in',
    summary: 'Exchanges the API key for a browser session like the link’s (cookie and proof). Never needs the API key.',
    auth: false,
    body: SignInBody,
    response: json(SignedIn),
  },
  'auth.signOut': {
    method: 'DELETE',
    path: '/api/sign-in',
    summary: 'Ends the calling browser’s session (its cookie and proof open nothing from then on) and clears its cookie.',
    auth: true,
    response: json(SignedOut),
  },
  'training.status': {
    method: 'GET',
    path: '/api/training/status',
    summary: 'State of the learning loop: method, state, queue, step, live adapter version, last step.',
    auth: true,
    response: json(TrainingStatusSchema),
    errors: [503],
  },
  'training.config.get': {
    method: 'GET',
    path: '/api/training/config',
    summary: 'Every training setting (the judge endpoint key is masked).',
    auth: true,
    response: json(TrainingConfigSchema),
    errors: [503],
  },
  'training.config.update': {
    method: 'PUT',
    path: '/api/training/config',
    summary: 'Change any subset of the training settings. Validated completely before it replaces the old settings.',
    auth: true,
    body: TrainingConfigPatchSchema,
    response: json(TrainingConfigSchema),
    errors: [409, 503],
  },
  'training.pause': {
    method: 'POST',
    path: '/api/training/pause',
    summary: 'Stop all training work (judging and steps); serving goes on.',
    auth: true,
    body: z.object({}).strict(),
    bodyOptional: true,
    response: json(TrainingStatusSchema),
    errors: [503],
  },
  'training.resume': {
    method: 'POST',
    path: '/api/training/resume',
    summary: 'Resume training work.',
    auth: true,
    body: z.object({}).strict(),
    bodyOptional: true,
    response: json(TrainingStatusSchema),
    errors: [503],
  },
  'checkpoints.list': {
    method: 'GET',
    path: '/api/checkpoints',
    summary: 'Every checkpoint with its step, version, parent, metrics, competence, pinned and live flags.',
    auth: true,
    response: json(CheckpointListSchema),
  },
  'checkpoints.rollback': {
    method: 'POST',
    path: '/api/checkpoints/{id}/rollback',
    summary: `Make a checkpoint (or base) live at once, as a new adapter version; training continues from it. {id}: ${id}.`,
    auth: true,
    body: z.object({}).strict(),
    bodyOptional: true,
    response: json(RollbackResponseSchema),
    errors: [409, 503],
  },
  'checkpoints.pin': {
    method: 'POST',
    path: '/api/checkpoints/{id}/pin',
    summary: 'Keep a checkpoint regardless of retention ({"pinned": false} unpins).',
    auth: true,
    body: PinRequestSchema,
    bodyOptional: true,
    response: json(PinResponseSchema),
  },
  'checkpoints.update': {
    method: 'PATCH',
    path: '/api/checkpoints/{id}',
    summary: 'Name a checkpoint and keep a note on it (each field given replaces the stored one; null or "" clears it).',
    auth: true,
    body: CheckpointPatchSchema,
    response: json(CheckpointLabelSchema),
  },
  'checkpoints.export': {
    method: 'POST',
    path: '/api/checkpoints/{id}/export',
    summary: "Write a checkpoint as a PEFT adapter folder or a merged GGUF file, into the data folder's exports/.",
    auth: true,
    body: ExportRequestSchema,
    bodyOptional: true,
    response: json(ExportResponseSchema),
    errors: [409, 503, 507],
  },
  metrics: {
    method: 'GET',
    path: '/api/metrics',
    summary: "Every step's metrics after step `since`.",
    auth: true,
    query: z.object({ since: z.coerce.number().int().min(0).default(0).describe('a step number; steps after it are listed') }).strict(),
    response: json(z.object({ object: z.literal('list'), data: z.array(StepRecordSchema) })),
  },
  'sessions.list': {
    method: 'GET',
    path: '/api/sessions',
    summary:
      'Recorded sessions (conversations), newest activity first, a page at a time (`limit`, then `cursor` = `next_cursor`); the first page ends with the pseudo-session "unknown" when turns came without a session.',
    auth: true,
    query: SessionQuerySchema,
    response: json(SessionListSchema),
  },
  'sessions.get': {
    method: 'GET',
    path: '/api/sessions/{id}',
    summary: "A session's turns with their feedback, judge votes, samples and receipts.",
    auth: true,
    response: json(SessionDetailSchema),
  },
  'sessions.update': {
    method: 'PATCH',
    path: '/api/sessions/{id}',
    summary: 'Rename a session.',
    auth: true,
    body: SessionPatchSchema,
    response: json(SessionListSchema.shape.data.element),
  },
  'sessions.delete': {
    method: 'DELETE',
    path: '/api/sessions/{id}',
    summary: 'Delete a session, its turns and its samples not yet trained on.',
    auth: true,
    response: json(SessionDeletedSchema),
    errors: [409],
  },
  'sessions.end': {
    method: 'POST',
    path: '/api/sessions/{id}/end',
    summary: "End a session, optionally with a final message that becomes the last main turn's next state.",
    auth: true,
    body: SessionEndRequestSchema,
    bodyOptional: true,
    response: json(SessionEndResponseSchema),
    errors: [409],
  },
  'turns.list': {
    method: 'GET',
    path: '/api/turns',
    summary: 'Recorded turns, newest first, with filters.',
    auth: true,
    query: TurnQuerySchema,
    response: json(TurnListSchema),
  },
  'turns.get': {
    method: 'GET',
    path: '/api/turns/{id}',
    summary: 'One turn: what was asked and answered, what followed, what it taught (its receipt).',
    auth: true,
    response: json(TurnViewSchema),
  },
  'export.sessions': {
    method: 'GET',
    path: '/api/export/sessions.jsonl',
    summary:
      'Every session as JSON Lines (the same as `clawloop export`); with filters (those of GET /api/turns), only the turns they match.',
    auth: true,
    query: ExportQuerySchema,
    response: { kind: 'jsonl', line: ExportLineSchema },
  },
  app: {
    method: 'GET',
    path: '/{file}',
    summary: 'The app (web mode): index.html and its bundled assets. Never needs the API key (the app asks for it).',
    auth: false,
    response: { kind: 'static' },
  },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof API;
export const ROUTE_NAMES = Object.keys(API) as RouteName[];

type Spec<N extends RouteName> = (typeof API)[N];
/** The JSON body a route takes (what a client sends). */
export type RequestOf<N extends RouteName> = Spec<N> extends { body: z.ZodType } ? z.input<Spec<N>['body']> : never;
/** The JSON a route answers with. */
export type ResponseOf<N extends RouteName> = Spec<N>['response'] extends { schema: z.ZodType }
  ? z.infer<Spec<N>['response']['schema']>
  : never;
/** The query parameters a route takes. */
export type QueryOf<N extends RouteName> = Spec<N> extends { query: z.ZodType } ? z.input<Spec<N>['query']> : never;
