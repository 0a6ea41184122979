import type { AppQueries } from '../store/appQueries.js';
import type { LearnStore } from '../store/learnStore.js';
import type { EventBus } from './eventBus.js';
import type { EventStreamSlots } from './eventStreamSlots.js';
import type { ExportQueue } from './exportQueue.js';
import type { BrowserSessions } from './browserSessions.js';
import type { SignInLinks } from './signIn.js';
import type { InferenceEngine } from './inferenceEngine.js';
import type { ServerOptions } from './serverOptions.js';
import type { SettingsFile } from './settingsFile.js';
import type { TrainerClient } from '../workers/trainer/client.js';

/** What every route handler may use: the engine, the database, the trainer, the event bus, the options. */
export interface ServerContext {
  engine: InferenceEngine;
  store: LearnStore;
  /** Session titles and deletion, filtered turn lists, step outcomes. */
  app: AppQueries;
  /** null: serving and recording without training (the training routes answer 503). */
  trainer: TrainerClient | null;
  events: EventBus;
  options: ServerOptions;
  /** The data folder (database, checkpoints, exports, settings). */
  dataDir: string;
  settings: SettingsFile;
  startedAt: number;
  /** The OpenAI base URL clients use, e.g. http://127.0.0.1:30000/v1. */
  baseUrl(): string;
  /** The model served when no model folder is configured (the bundled one). */
  defaultModelDir: string;
  /** True once the server began shutting down: requests other than reads get 503 `shutting_down`. */
  closing(): boolean;
  /** Why new requests are refused while the server shuts down (names the step it finishes); null before. */
  shutdownMessage(): string | null;
  /** Something the learning loop may act on happened (a turn stored, a next state, feedback, a session end). */
  wakeTrainer(): void;
  log(line: string): void;
  /** Runs `f` when the server starts shutting down (long-lived streams end themselves there); returns the function that cancels it. */
  onShutdown(f: () => void): () => void;
  /** The one-time sign-in links of the web app. */
  signInLinks: SignInLinks;
  /** The browsers signed in to the web app (cookie plus the page's proof). */
  browserSessions: BrowserSessions;
  /** The open /api/events streams, per client and in all (429 past the limits). */
  eventStreams: EventStreamSlots;
  /** Checkpoint exports under way: one per target folder, one model-loading worker at a time. */
  exports: ExportQueue;
}
