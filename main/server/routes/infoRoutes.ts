import fs from 'node:fs';
import { inspectModelFolder, ModelFolderError } from '../../engine/formats/index.js';
import type { Settings } from '../../protocol/app.js';
import { resourcePath } from '../../resources.js';
import { ApiError } from '../apiError.js';
import { newApiKey } from '../apiKeyFile.js';
import { openClawFitNote, openClawProvider } from '../openclawProvider.js';
import { keylessCorsProblem } from '../requestGuards.js';
import { startBrowserSession } from './authRoutes.js';
import { refuseLinksOut } from '../modelFolderLinks.js';
import type { Handler } from '../routeTypes.js';
import type { ServerContext } from '../serverContext.js';

let version: string | null = null;
function clawloopVersion(): string {
  version ??= (JSON.parse(fs.readFileSync(resourcePath('..', 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}

export const info: Handler<'info'> = (ctx) => {
  const m = ctx.engine.info;
  const mem = process.memoryUsage();
  const baseUrl = ctx.baseUrl();
  return {
    version: clawloopVersion(),
    model: {
      name: m.name,
      dir: m.dir,
      architecture: m.architecture,
      parameters: m.parameters,
      context_length: m.contextLength,
      backend: m.backend,
      backend_notes: m.backendLog,
    },
    memory: { rss_bytes: mem.rss, heap_used_bytes: mem.heapUsed },
    data_dir: ctx.dataDir,
    base_url: baseUrl,
    served_model_name: ctx.options.servedModelName,
    api_key_set: ctx.options.apiKey !== null,
    openclaw_provider: openClawProvider({
      baseUrl,
      modelId: ctx.options.servedModelName,
      contextLength: m.contextLength,
      // Never the key itself (docs/security.md): a stand-in that says where it is.
      apiKey: ctx.options.apiKey ? keyStandIn(ctx) : null,
    }),
    openclaw_note: openClawFitNote(ctx.options.servedModelName, m.contextLength),
    started_at: ctx.startedAt,
  };
};

/** What the OpenClaw entry shows instead of the key: where to find it. */
function keyStandIn(ctx: ServerContext): string {
  return `<the API key: the api-key file in ${ctx.dataDir}, or the key given to clawloop serve>`;
}

function settingsView(ctx: ServerContext): Settings {
  const s = ctx.settings.get();
  const running = { model_dir: ctx.engine.info.dir, backend: ctx.engine.info.backend };
  const wantedDir = s.model_dir ?? ctx.defaultModelDir;
  return {
    model_dir: s.model_dir,
    backend: s.backend,
    data_dir: ctx.dataDir,
    restart_required: wantedDir !== running.model_dir || (s.backend !== null && s.backend !== running.backend),
    running,
  };
}

export const getSettings: Handler<'settings.get'> = (ctx) => settingsView(ctx);

export const putSettings: Handler<'settings.update'> = (ctx, { body }) => {
  let modelDir = body.model_dir;
  if (modelDir) {
    refuseLinksOut(modelDir, 'model_dir');
    try {
      modelDir = inspectModelFolder(modelDir).dir;
    } catch (err) {
      if (err instanceof ModelFolderError) throw new ApiError(400, err.message, 'invalid_request_error', 'invalid_model_dir', 'model_dir');
      throw err;
    }
  }
  ctx.settings.update({
    ...(modelDir !== undefined ? { model_dir: modelDir } : {}),
    ...(body.backend !== undefined ? { backend: body.backend } : {}),
  });
  return settingsView(ctx);
};

/**
 * Sets, regenerates or clears the API key, in force at once. A key set here is stored for the next
 * start; turning the key off lasts until then (the next start takes the data folder's own key
 * again: only `--no-auth` starts a core without one). Every browser session ends; the caller's
 * browser gets a new one. A key-less core that lets any web page in is refused, as at start.
 */
export const putApiKey: Handler<'settings.apiKey'> = (ctx, r) => {
  const key = 'regenerate' in r.body ? newApiKey() : r.body.api_key;
  const problem = key === null ? keylessCorsProblem(ctx.options.corsOrigins) : null;
  if (problem) throw new ApiError(400, `the key cannot be turned off here: ${problem}`, 'invalid_request_error', 'keyless_cors', 'api_key');
  ctx.settings.update({ api_key: key });
  ctx.options.apiKey = key;
  ctx.browserSessions.revokeAll();
  return { api_key: key, session_proof: startBrowserSession(ctx, r) };
};
