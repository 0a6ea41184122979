/**
 * The app's one API client: a typed method per route of the core. Components never call fetch;
 * stores call these.
 */
import type {
  CheckpointList,
  CoreInfo,
  CoreSettings,
  ExportFormat,
  ExportResult,
  FeedbackResult,
  Health,
  MetricsRow,
  RollbackResult,
  SessionDetail,
  SessionSummary,
  SettingsPatch,
  TrainingConfig,
  TrainingConfigPatch,
  TrainingStatus,
  TurnFilter,
  TurnsPage,
  TurnView,
} from './contract.js';
import { streamChat, type ChatDelta, type ChatStreamRequest, type ChatStreamResult, type ChatStreamStart } from './chatStream.js';
import { Transport, type TransportOptions } from './transport.js';

const seg = (id: string) => encodeURIComponent(id);

export class ApiClient {
  readonly transport: Transport;

  constructor(options: TransportOptions) {
    this.transport = new Transport(options);
  }

  health(signal?: AbortSignal): Promise<Health> {
    return this.transport.json('GET', '/healthz', { signal });
  }
  info(): Promise<CoreInfo> {
    return this.transport.json('GET', '/api/info');
  }

  // Settings and the API key.
  settings(): Promise<CoreSettings> {
    return this.transport.json('GET', '/api/settings');
  }
  saveSettings(patch: SettingsPatch): Promise<CoreSettings> {
    return this.transport.json('PUT', '/api/settings', { body: patch });
  }
  /** Sets (a string), removes (null) or regenerates the core's API key; answers the new key. */
  setApiKey(change: { api_key: string | null } | { regenerate: true }): Promise<{ api_key: string | null }> {
    return this.transport.json('PUT', '/api/settings/api-key', { body: change });
  }
  /** GET /v1/models: what an OpenAI client sees (Connect's Test connection). */
  models(): Promise<{ data: Array<{ id: string; context_length?: number }> }> {
    return this.transport.json('GET', '/v1/models');
  }

  // Chat and feedback.
  chat(req: ChatStreamRequest, onStart: (s: ChatStreamStart) => void, onDelta: (d: ChatDelta) => void): Promise<ChatStreamResult> {
    return streamChat(this.transport, req, onStart, onDelta);
  }
  feedback(completionId: string, change: { rating?: 'up' | 'down' | null; hint?: string | null }): Promise<FeedbackResult> {
    return this.transport.json('POST', '/v1/feedback', { body: { completion_id: completionId, ...change } });
  }

  // Sessions and turns.
  sessions(): Promise<{ data: SessionSummary[] }> {
    return this.transport.json('GET', '/api/sessions');
  }
  session(id: string): Promise<SessionDetail> {
    return this.transport.json('GET', `/api/sessions/${seg(id)}`);
  }
  renameSession(id: string, title: string): Promise<SessionSummary> {
    return this.transport.json('PATCH', `/api/sessions/${seg(id)}`, { body: { title } });
  }
  deleteSession(id: string): Promise<unknown> {
    return this.transport.json('DELETE', `/api/sessions/${seg(id)}`);
  }
  turns(filter: TurnFilter = {}): Promise<TurnsPage> {
    return this.transport.json('GET', '/api/turns', { query: { ...filter } });
  }
  turn(id: string): Promise<TurnView> {
    return this.transport.json('GET', `/api/turns/${seg(id)}`);
  }
  /** Every recorded session as JSON lines (a download). */
  async exportSessions(): Promise<Blob> {
    const res = await this.transport.send('GET', '/api/export/sessions.jsonl');
    return res.blob();
  }

  // Training.
  trainingStatus(): Promise<TrainingStatus> {
    return this.transport.json('GET', '/api/training/status');
  }
  trainingConfig(): Promise<TrainingConfig> {
    return this.transport.json('GET', '/api/training/config');
  }
  saveTrainingConfig(patch: TrainingConfigPatch): Promise<TrainingConfig> {
    return this.transport.json('PUT', '/api/training/config', { body: patch });
  }
  pauseTraining(): Promise<TrainingStatus> {
    return this.transport.json('POST', '/api/training/pause', { body: {} });
  }
  resumeTraining(): Promise<TrainingStatus> {
    return this.transport.json('POST', '/api/training/resume', { body: {} });
  }
  /** Step metrics after step `since` (0: all). */
  metrics(since = 0): Promise<{ data: MetricsRow[] }> {
    return this.transport.json('GET', '/api/metrics', { query: { since } });
  }

  // Checkpoints.
  checkpoints(): Promise<CheckpointList> {
    return this.transport.json('GET', '/api/checkpoints');
  }
  /** Makes a checkpoint (or 'base') live as a new adapter version. */
  rollback(id: string): Promise<RollbackResult> {
    return this.transport.json('POST', `/api/checkpoints/${seg(id)}/rollback`, { body: {} });
  }
  pin(id: string, pinned: boolean): Promise<{ checkpoint: string; pinned: boolean }> {
    return this.transport.json('POST', `/api/checkpoints/${seg(id)}/pin`, { body: { pinned } });
  }
  /** Writes a checkpoint as a PEFT folder or a GGUF file; no dir: the data folder's exports/. */
  exportCheckpoint(id: string, format: ExportFormat, dir?: string): Promise<ExportResult> {
    return this.transport.json('POST', `/api/checkpoints/${seg(id)}/export`, { body: dir ? { format, dir } : { format } });
  }
}
