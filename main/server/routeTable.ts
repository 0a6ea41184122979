import { signIn, signInLink, signOut } from './routes/authRoutes.js';
import { chatCompletions } from './routes/chat/chatCompletions.js';
import { exportCheckpoint, labelCheckpoint, listCheckpoints, pinCheckpoint, rollbackCheckpoint } from './routes/checkpointRoutes.js';
import { streamEvents } from './routes/eventsRoute.js';
import { postFeedback } from './routes/feedbackRoute.js';
import { getSettings, info, putApiKey, putSettings } from './routes/infoRoutes.js';
import { health, listModels } from './routes/modelRoutes.js';
import { deleteSession, endSession, getSession, listSessions, updateSession } from './routes/sessionRoutes.js';
import { serveApp } from './routes/staticApp.js';
import { getTrainingConfig, pauseTraining, putTrainingConfig, resumeTraining, trainingStatus } from './routes/trainingRoutes.js';
import { exportSessionsJsonl, getTurn, listTurns, metrics } from './routes/turnRoutes.js';
import type { Handlers } from './routeTypes.js';

/**
 * The handler of every route in main/protocol/api.ts (method, path, schemas and auth live there).
 * The router dispatches from this table and nothing else; a route without a handler does not compile.
 */
export const HANDLERS: Handlers = {
  health,
  'models.list': listModels,
  'chat.completions': chatCompletions,
  feedback: postFeedback,
  events: streamEvents,
  info,
  'settings.get': getSettings,
  'settings.update': putSettings,
  'settings.apiKey': putApiKey,
  'auth.link': signInLink,
  'auth.signIn': signIn,
  'auth.signOut': signOut,
  'training.status': trainingStatus,
  'training.config.get': getTrainingConfig,
  'training.config.update': putTrainingConfig,
  'training.pause': pauseTraining,
  'training.resume': resumeTraining,
  'checkpoints.list': listCheckpoints,
  'checkpoints.rollback': rollbackCheckpoint,
  'checkpoints.pin': pinCheckpoint,
  'checkpoints.update': labelCheckpoint,
  'checkpoints.export': exportCheckpoint,
  metrics,
  'sessions.list': listSessions,
  'sessions.get': getSession,
  'sessions.update': updateSession,
  'sessions.delete': deleteSession,
  'sessions.end': endSession,
  'turns.list': listTurns,
  'turns.get': getTurn,
  'export.sessions': exportSessionsJsonl,
  app: serveApp,
};
