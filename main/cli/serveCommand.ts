import path from 'node:path';
import { BACKENDS } from '../protocol/app.js';
import { DEFAULT_SERVER_OPTIONS, type ServerOptions } from '../server/serverOptions.js';
import { launchClawLoop, type Launched } from '../server/launch.js';
import { openClawFitNote, openClawProvider } from '../server/openclawProvider.js';
import { LOG_FORMATS, type LogFormat } from '../server/requestLog.js';
import { DEFAULT_TRAINING_CONFIG, TRAIN_METHODS, type TrainingConfigPatch } from '../protocol/training.js';
import { mergeTrainingConfig, TrainingConfigError } from '../rl/trainingConfig.js';
import { removeServerFile, writeServerFile } from './serverFile.js';
import { DataDirLock } from './dataDirLock.js';
import { SettingsFile, type StoredSettings } from '../server/settingsFile.js';
import { API_KEY_FILE, readApiKey } from '../server/apiKeyFile.js';
import { secureDataFolder } from '../store/dataFolderMode.js';
import { accessKey, givenApiKey } from './serveKey.js';
import { appDir } from '../resources.js';
import { numberFlag, parse, UsageError } from './args.js';
import { resolveModelDir } from './modelDir.js';
import { DEFAULT_MODEL } from '../resources.js';
import { DB_FILE, resolveDataDir } from './dataDir.js';
import type { Io } from './io.js';

const D = DEFAULT_SERVER_OPTIONS;

export const SERVE_USAGE = `Usage: clawloop serve [--model DIR] [options]

Serves the model through an OpenAI-compatible API (POST /v1/chat/completions, GET /v1/models,
GET /healthz) and records every conversation in the data folder.

  --model DIR               Hugging Face model folder (config.json, *.safetensors, tokenizer.json);
                            default: the bundled ${DEFAULT_MODEL} (resources/models/${DEFAULT_MODEL})
  --host HOST               interface to bind (default ${D.host}; 0.0.0.0 exposes it to your network)
  --port PORT               TCP port (default ${D.port}; 0 picks a free one)
  --api-key-file FILE       require "Authorization: Bearer KEY" with the KEY in FILE (or env
                            CLAWLOOP_API_KEY; default: a random key made on first start, kept in
                            <data dir>/api-key, mode 0600); 8 to 200 visible ASCII characters
  --api-key KEY             the same, but other users of the machine see KEY through ps: prefer the above
  --no-auth                 no key at all: every user and program on this machine can read your
                            conversations and change settings (not recommended)
  --data-dir DIR            where conversations are stored (default: env CLAWLOOP_HOME, else ~/.clawloop)
  --served-model-name NAME  the model id clients use (default: the model folder's name)
  --backend NAME            native (default where the addon loads), wasm, cpu, webgpu or tensorflow; or env CLAWLOOP_BACKEND
  --max-batch N             requests generated at once, decoded as one batch (default ${D.maxBatch}; 1 = one at a time)
  --max-queue N             requests that may wait while --max-batch run; more get 429 (default ${D.maxQueue})
  --max-body-bytes N        largest request body; larger gets 413 (default ${D.maxBodyBytes})
  --session-idle-minutes M  end sessions idle this long (default ${D.sessionIdleMs / 60_000}; 0 = never)
  --cors ORIGIN             let web pages from ORIGIN (a URL, or *) call the API: CORS headers, and
                            state changes allowed (repeatable; default: only the app served here)
  --allowed-host NAME       accept requests addressed to NAME (besides localhost and IP addresses),
                            e.g. a host name others reach this machine by (repeatable)
  --export-dir DIR          allow exports to be written under DIR (repeatable; default: only the
                            data folder's exports/)
  --log-format FORMAT       each request's console line as text (default) or json (one object a line)
  --quiet                   log only refused and failed requests, not every request

Learning (stored in the data folder; these flags override the stored settings):
  --train-method M          ${TRAIN_METHODS.join(' | ')} (default ${DEFAULT_TRAINING_CONFIG.method})
  --batch-size N            samples per optimizer step (default ${DEFAULT_TRAINING_CONFIG.batch_size})
  --lr X                    learning rate (default ${DEFAULT_TRAINING_CONFIG.learning_rate})
  --lora-rank N             LoRA rank (default ${DEFAULT_TRAINING_CONFIG.lora_rank}); --lora-alpha X (default ${DEFAULT_TRAINING_CONFIG.lora_alpha})
  --lora-targets LIST       comma-separated projections (default all: q,k,v,o,gate,up,down _proj)
  --votes N                 judge votes m (default: 3 for rl, 1 otherwise)
  --w-rl X, --w-opd X       weights of the RL and OPD terms (default 1, 1)
  --opd-clip C              clip OPD advantages to [-C, C] (default: off)
  --kl-coef X               KL to the base model (default: 0.02 for rl, 0 otherwise)
  --max-staleness N         drop samples more than N adapter versions old (default ${DEFAULT_TRAINING_CONFIG.max_staleness})
  --keep-checkpoints K      checkpoints kept besides pinned ones (default ${DEFAULT_TRAINING_CONFIG.keep_checkpoints})
  --feedback-wait S         seconds a 👍/👎 waits for a hint before training takes it (default ${DEFAULT_TRAINING_CONFIG.feedback_wait_s}; 0 = at once)
  --judge-model DIR         judge with another local model (default: the judge the model folder's
                            clawloop_training.json names, else the served model, adapter off)
  --judge-url URL           judge with an OpenAI-compatible endpoint; with --judge-model-name NAME
                            and --judge-api-key KEY (or env CLAWLOOP_JUDGE_API_KEY)
  --reset-training-config   forget the training settings stored in the data folder and start from
                            the defaults (and these flags)

Stop with Ctrl-C (SIGINT) or SIGTERM: new requests are refused, a training step under way and
requests in flight finish, then the database is closed. A second signal stops at once: the step
is not recorded (its samples train in a later step) and requests in flight are aborted.`;

/** The provider entry to paste into ~/.openclaw/openclaw.json, as printed. */
export function openClawProviderEntry(baseUrl: string, modelId: string, contextLength: number, apiKey: string | null): string {
  return JSON.stringify(openClawProvider({ baseUrl, modelId, contextLength, apiKey }), null, 2);
}

const SERVE_FLAGS = {
  model: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-file': { type: 'string' },
  'no-auth': { type: 'boolean' },
  'data-dir': { type: 'string' },
  'served-model-name': { type: 'string' },
  backend: { type: 'string' },
  'max-queue': { type: 'string' },
  'max-batch': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'session-idle-minutes': { type: 'string' },
  'keep-alive-ms': { type: 'string' },
  cors: { type: 'string', multiple: true },
  'allowed-host': { type: 'string', multiple: true },
  'export-dir': { type: 'string', multiple: true },
  'log-format': { type: 'string' },
  quiet: { type: 'boolean' },
  'train-method': { type: 'string' },
  'batch-size': { type: 'string' },
  lr: { type: 'string' },
  'lora-rank': { type: 'string' },
  'lora-alpha': { type: 'string' },
  'lora-targets': { type: 'string' },
  votes: { type: 'string' },
  'w-rl': { type: 'string' },
  'w-opd': { type: 'string' },
  'opd-clip': { type: 'string' },
  'kl-coef': { type: 'string' },
  'max-staleness': { type: 'string' },
  'keep-checkpoints': { type: 'string' },
  'feedback-wait': { type: 'string' },
  'judge-model': { type: 'string' },
  'judge-url': { type: 'string' },
  'judge-model-name': { type: 'string' },
  'judge-api-key': { type: 'string' },
  'reset-training-config': { type: 'boolean' },
} as const;

type ServeFlags = ReturnType<typeof parse<typeof SERVE_FLAGS>>['values'];

/** The server options the flags set; unset ones take what the app stored in Settings, then the defaults. */
function serverOptions(values: ServeFlags, stored: StoredSettings, apiKey: string | null): Partial<ServerOptions> {
  const idleMinutes = numberFlag(values['session-idle-minutes'], '--session-idle-minutes', { min: 0 });
  const options: Partial<ServerOptions> = {
    host: values.host ?? D.host,
    port: numberFlag(values.port, '--port', { min: 0, max: 65535, integer: true }) ?? D.port,
    apiKey,
    servedModelName: values['served-model-name'] ?? '',
    maxQueue: numberFlag(values['max-queue'], '--max-queue', { min: 0, integer: true }) ?? D.maxQueue,
    maxBatch: numberFlag(values['max-batch'], '--max-batch', { min: 1, max: 256, integer: true }) ?? D.maxBatch,
    maxBodyBytes: numberFlag(values['max-body-bytes'], '--max-body-bytes', { min: 1024, integer: true }) ?? D.maxBodyBytes,
    keepAliveMs: numberFlag(values['keep-alive-ms'], '--keep-alive-ms', { min: 10, integer: true }) ?? D.keepAliveMs,
    sessionIdleMs: idleMinutes === undefined ? D.sessionIdleMs : idleMinutes * 60_000,
    corsOrigins: listFlag(values.cors),
    appDir: appDir(),
    allowedHosts: listFlag(values['allowed-host']),
    exportDirs: listFlag(values['export-dir']).map((d) => path.resolve(d)),
    logFormat: logFormatFlag(values['log-format']),
    quiet: values.quiet === true,
  };
  return options;
}

export async function serveCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, SERVE_FLAGS);
  const trainingPatch = trainingFlags(values);
  const dataDir = resolveDataDir(values['data-dir']);
  // What the app chose in Settings applies when no flag says otherwise.
  const stored = SettingsFile.read(dataDir);
  const modelDir = resolveModelDir(values.model ?? stored.model_dir ?? undefined);
  const backendName = values.backend ?? stored.backend ?? undefined;
  const backend = backendName ? backendFlag(backendName) : undefined;
  process.umask(0o077); // everything written from here on is the owner's alone (0600 files, 0700 folders)
  const secured = secureDataFolder(dataDir);
  if (secured) io.log(`clawloop: made ${secured} file(s) and folder(s) in ${dataDir} readable by you alone`);
  const options = serverOptions(values, stored, givenApiKey(values, stored.api_key, io));
  options.apiKey = accessKey(values, options.apiKey ?? null, options.corsOrigins ?? [], dataDir, io);
  const resetTrainingConfig = values['reset-training-config'] === true;
  const lock = DataDirLock.acquire(dataDir, io.log); // one ClawLoop per data folder; released at exit
  const launched = await launchClawLoop({ modelDir, dataDir, backend, trainingPatch, resetTrainingConfig, options, log: io.log });
  writeServerFile(dataDir, { pid: process.pid, url: launched.server.url, started_at: Date.now() });
  lock.setPort(Number(new URL(launched.server.origin).port));
  logStartup(io, launched, dataDir, options);
  await untilSignalled(io, launched, lock);
  removeServerFile(dataDir);
  lock.release();
  io.log('clawloop: stopped; database closed');
  return 0;
}

/** What is served where, what is learned, where the app is, and how to point OpenClaw at it. */
function logStartup(io: Io, launched: Launched, dataDir: string, options: Partial<ServerOptions>): void {
  const { server, engine, trainer } = launched;
  const info = engine.info;
  const st = trainer.status;
  io.log(
    `clawloop: learning: method ${st.method}, adapter version ${st.adapter_version}, step ${st.step}, ${st.queued_samples} sample(s) queued${st.state === 'paused' ? ' (paused)' : ''}`,
  );
  io.log(
    `clawloop: ${info.name} (${info.architecture}, ${(info.parameters / 1e6).toFixed(2)} M parameters, context ${info.contextLength} tokens)`,
  );
  io.log(`clawloop: recording conversations in ${path.join(dataDir, DB_FILE)}`);
  if (options.host !== '127.0.0.1' && options.host !== 'localhost' && options.host !== '::1' && !options.apiKey) {
    io.log(`clawloop: warning: listening on ${options.host} without an API key; anyone who can reach this port can use the model`);
  }
  io.log(`clawloop: serving ${server.options.servedModelName} at ${server.url}`);
  io.log(`clawloop: the app: ${server.appLink()}${server.options.appDir ? '' : ' (not built: run npm run build)'}`);
  if (options.apiKey) io.log(`clawloop: ${keyWhere(dataDir, options.apiKey)}; a browser that did not open the link above asks for it`);
  // The log never shows the key (logs get pasted into issues): the entry names where it is.
  const keyStandIn = options.apiKey ? `<the key in ${path.join(dataDir, API_KEY_FILE)} (or given with --api-key)>` : null;
  logOpenClaw(io, server.url, server.options.servedModelName, info.contextLength, keyStandIn);
}

/** How to point OpenClaw at the server, or why this model cannot serve it and what to do. */
function logOpenClaw(io: Io, url: string, modelId: string, contextLength: number, apiKey: string | null): void {
  const note = openClawFitNote(modelId, contextLength);
  if (note) {
    io.log(`\nclawloop: OpenClaw: ${note}\n`);
    return;
  }
  io.log(
    `\nPoint OpenClaw at it: run \`node bin/clawloop.js openclaw\` from the ClawLoop folder (it merges this into ~/.openclaw/openclaw.json, keeping a backup), or merge it yourself:\n`,
  );
  io.log(openClawProviderEntry(url, modelId, contextLength, apiKey));
  io.log('');
}

/** Where the key in force comes from, in words (never the key itself: logs get pasted into issues). */
function keyWhere(dataDir: string, key: string): string {
  const file = path.join(dataDir, API_KEY_FILE);
  return readApiKey(dataDir) === key
    ? `the API key is in ${file}`
    : 'the API key is the one given with --api-key, CLAWLOOP_API_KEY or Connect';
}

function logFormatFlag(raw: string | undefined): LogFormat {
  if (raw === undefined) return 'text';
  if ((LOG_FORMATS as readonly string[]).includes(raw)) return raw as LogFormat;
  throw new UsageError(`--log-format is '${raw}'; valid formats: ${LOG_FORMATS.join(', ')}`);
}

/**
 * Runs until SIGINT or SIGTERM, then closes: a training step under way finishes and requests in
 * flight end while new ones are refused; a second signal stops training at once and aborts them.
 */
function untilSignalled(io: Io, launched: Launched, lock: DataDirLock): Promise<void> {
  return new Promise<void>((resolve) => {
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals === 1) {
        lock.markStopping();
        io.log(`clawloop: ${sig}: shutting down; new requests are refused, requests in flight finish (send again to stop at once)`);
        launched
          .close()
          .catch((err) => io.log(`clawloop: shutdown error: ${(err as Error).message}`))
          .finally(resolve);
      } else if (signals === 2) {
        io.log(`clawloop: ${sig} again: stopping now; aborting requests in flight`);
        launched.abort().catch((err) => io.log(`clawloop: shutdown error: ${(err as Error).message}`));
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** --backend, checked here without loading the engine (which loads tfjs) on the HTTP thread. */
function backendFlag(raw: string): (typeof BACKENDS)[number] {
  const name = raw.trim().toLowerCase();
  if ((BACKENDS as readonly string[]).includes(name)) return name as (typeof BACKENDS)[number];
  throw new UsageError(`--backend is '${raw}'; valid backends: ${BACKENDS.join(', ')}`);
}

/** A repeatable flag's values; each may also be a comma-separated list. */
function listFlag(v: string[] | undefined): string[] {
  return (v ?? [])
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter(Boolean);
}

/** The training flags of `clawloop serve` as a configuration patch, validated (errors name the flag). */
function trainingFlags(v: Record<string, string | string[] | boolean | undefined>): TrainingConfigPatch {
  const s = (k: string) => v[k] as string | undefined;
  const p: Record<string, unknown> = {};
  const num = (flag: string, key: string, integer = false) => {
    const n = numberFlag(s(flag), `--${flag}`, { integer });
    if (n !== undefined) p[key] = n;
  };
  if (s('train-method') !== undefined) p.method = s('train-method');
  num('batch-size', 'batch_size', true);
  num('lr', 'learning_rate');
  num('lora-rank', 'lora_rank', true);
  num('lora-alpha', 'lora_alpha');
  if (s('lora-targets') !== undefined)
    p.lora_targets = s('lora-targets')!
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  num('votes', 'votes', true);
  num('w-rl', 'w_rl');
  num('w-opd', 'w_opd');
  num('opd-clip', 'opd_clip');
  num('kl-coef', 'kl_coef');
  num('max-staleness', 'max_staleness', true);
  num('keep-checkpoints', 'keep_checkpoints', true);
  num('feedback-wait', 'feedback_wait_s', true);
  if (s('judge-model') && s('judge-url')) throw new UsageError('give either --judge-model or --judge-url, not both');
  if (s('judge-model')) p.judge = { kind: 'model', dir: path.resolve(s('judge-model')!) };
  if (s('judge-url')) {
    if (!s('judge-model-name')) throw new UsageError('--judge-url needs --judge-model-name (the model id the endpoint serves)');
    p.judge = {
      kind: 'endpoint',
      url: s('judge-url'),
      model: s('judge-model-name'),
      api_key: s('judge-api-key') ?? process.env.CLAWLOOP_JUDGE_API_KEY ?? null,
    };
  }
  try {
    mergeTrainingConfig(DEFAULT_TRAINING_CONFIG, p);
  } catch (err) {
    if (err instanceof TrainingConfigError)
      throw new UsageError(err.message.replace(/: (\w+):/, (_, f: string) => `: --${f.replace(/_/g, '-')}:`));
    throw err;
  }
  return p as TrainingConfigPatch;
}
