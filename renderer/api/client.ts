/**
 * The app's one API client: every call goes through the route table of the contract
 * (main/protocol/api.ts), so the method, the path and the types come from one place, and every
 * JSON answer is checked against the route's response schema (an answer of the wrong shape is an
 * error that names the field, not a blank screen later). Components never call fetch; stores call
 * these methods.
 */
import { API, routePath, type QueryOf, type RequestOf, type ResponseOf, type RouteName } from '../../main/protocol/api.js';
import type { ExportFormat, ExportQuery, SettingsPatch, TrainingConfigPatch, TurnQuery } from './contract.js';
import { streamChat, type ChatDelta, type ChatStreamRequest, type ChatStreamResult, type ChatStreamStart } from './chatStream.js';
import { ApiRequestError, Transport, type RequestOptions, type TransportOptions } from './transport.js';
import { MAX_SESSION_PAGE, type SessionList, type SessionQuery } from '../../main/protocol/sessions.js';

/** The routes that answer one JSON document. */
export type JsonRoute = { [K in RouteName]: (typeof API)[K]['response']['kind'] extends 'json' ? K : never }[RouteName];

interface CallOptions<N extends JsonRoute> {
  params?: Record<string, string>;
  query?: QueryOf<N>;
  body?: RequestOf<N>;
  signal?: AbortSignal;
}

export class ApiClient {
  readonly transport: Transport;

  constructor(options: TransportOptions) {
    this.transport = new Transport(options);
  }

  /** Calls a route of the table and checks its JSON answer against the route's schema. */
  async call<N extends JsonRoute>(name: N, o: CallOptions<N> = {}): Promise<ResponseOf<N>> {
    const spec = API[name];
    const path = routePath(spec.path, o.params);
    const res = await this.transport.send(spec.method, path, {
      query: o.query as RequestOptions['query'],
      body: o.body,
      signal: o.signal,
    });
    const data: unknown = await res.json();
    const parsed = spec.response.schema.safeParse(data);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      const field = i.path.join('.') || '(the whole answer)';
      throw new ApiRequestError(
        `The core answered ${spec.method} ${path} in a shape this app does not know (${field}: ${i.message}); the app and the core are probably different versions — restart ClawLoop after updating it.`,
        res.status,
      );
    }
    return parsed.data as ResponseOf<N>;
  }

  health(signal?: AbortSignal) {
    return this.call('health', { signal });
  }
  info() {
    return this.call('info');
  }
  settings() {
    return this.call('settings.get');
  }
  saveSettings(patch: SettingsPatch) {
    return this.call('settings.update', { body: patch });
  }
  /** Sets (a string), removes (null) or regenerates the core's API key; answers the new key. */
  /** Exchanges the API key for the core's HttpOnly sign-in cookie, so the page need not keep the key. */
  signIn(apiKey: string) {
    return this.call('auth.signIn', { body: { api_key: apiKey } });
  }
  setApiKey(change: RequestOf<'settings.apiKey'>) {
    return this.call('settings.apiKey', { body: change });
  }
  /** What an OpenAI client sees (Connect's Test connection). */
  models() {
    return this.call('models.list');
  }

  chat(req: ChatStreamRequest, onStart: (s: ChatStreamStart) => void, onDelta: (d: ChatDelta) => void): Promise<ChatStreamResult> {
    return streamChat(this.transport, req, onStart, onDelta);
  }
  feedback(completionId: string, change: { rating?: 'up' | 'down' | null; hint?: string | null; reject_judge_hint?: boolean }) {
    return this.call('feedback', { body: { completion_id: completionId, ...change } });
  }

  /** One page of sessions, newest activity first; `cursor` is the previous page's `next_cursor`. */
  sessionsPage(query: SessionQuery = {}) {
    return this.call('sessions.list', { query });
  }
  /** Every session, read a page at a time (the core answers other requests between pages). */
  async sessions(): Promise<SessionList> {
    const data: SessionList['data'] = [];
    for (let cursor: string | undefined; ;) {
      const page = await this.sessionsPage({ limit: MAX_SESSION_PAGE, ...(cursor ? { cursor } : {}) });
      data.push(...page.data);
      if (!page.has_more || !page.next_cursor) return { object: 'list', data };
      cursor = page.next_cursor;
    }
  }
  session(id: string) {
    return this.call('sessions.get', { params: { id } });
  }
  renameSession(id: string, title: string | null) {
    return this.call('sessions.update', { params: { id }, body: { title } });
  }
  deleteSession(id: string) {
    return this.call('sessions.delete', { params: { id } });
  }
  turns(query: TurnQuery = {}) {
    return this.call('turns.list', { query });
  }
  turn(id: string) {
    return this.call('turns.get', { params: { id } });
  }
  /** The recorded sessions as JSON lines (a download); with filters, only the turns they match. */
  async exportSessions(query: ExportQuery = {}): Promise<Blob> {
    const res = await this.transport.send('GET', API['export.sessions'].path, { query: query as RequestOptions['query'] });
    return res.blob();
  }

  trainingStatus() {
    return this.call('training.status');
  }
  trainingConfig() {
    return this.call('training.config.get');
  }
  saveTrainingConfig(patch: TrainingConfigPatch) {
    return this.call('training.config.update', { body: patch });
  }
  pauseTraining() {
    return this.call('training.pause', { body: {} });
  }
  resumeTraining() {
    return this.call('training.resume', { body: {} });
  }
  /** Step metrics after step `since` (0: all). */
  metrics(since = 0) {
    return this.call('metrics', { query: { since } });
  }

  checkpoints() {
    return this.call('checkpoints.list');
  }
  /** Makes a checkpoint (or 'base') live as a new adapter version. */
  rollback(id: string) {
    return this.call('checkpoints.rollback', { params: { id }, body: {} });
  }
  pin(id: string, pinned: boolean) {
    return this.call('checkpoints.pin', { params: { id }, body: { pinned } });
  }
  /** A checkpoint's name and note ('' clears one). */
  labelCheckpoint(id: string, label: { name?: string; note?: string }) {
    return this.call('checkpoints.update', { params: { id }, body: label });
  }
  /** A PEFT folder or a GGUF file; no dir: the data folder's exports/. */
  exportCheckpoint(id: string, format: ExportFormat, dir?: string) {
    return this.call('checkpoints.export', { params: { id }, body: dir ? { format, dir } : { format } });
  }
}
