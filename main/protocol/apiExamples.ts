/**
 * One example per route for docs/api.md: what to send and what comes back. A test checks every
 * example against its route's schemas, so the documentation cannot drift from the code.
 */
import { CLAWLOOP_MINI_TRAINING } from './bundledModel.js';
import { DEFAULT_TRAINING_CONFIG } from './training.js';

export interface RouteExample {
  /** Path parameters. */
  params?: Record<string, string>;
  /** The query string, without '?'. */
  query?: string;
  /** Extra request headers worth showing. */
  headers?: Record<string, string>;
  request?: unknown;
  /** The answer (for event streams and JSONL: the text as it arrives). */
  response?: unknown;
  responseText?: string;
}

const metrics = {
  loss: 0.0412,
  pg_loss: 0.0398,
  kl: 0,
  entropy: 1.92,
  reverse_kl: 0,
  clip_fraction: 0.03,
  ratio_mean: 1.001,
  logprob_drift: 0.004,
  grad_norm: 0.61,
  learning_rate: 0.0025,
  mean_reward: 0.5,
  samples: { rl: 2, opd: 1, both: 1, total: 4 },
  teacher_advantage: { mean: 0.21, std: 0.9 },
  tokens: 412,
  step_ms: 1840,
};

const turn = {
  id: 'chatcmpl-5f0c2a9e8b7d41c3a2f1e0d9',
  type: 'main',
  session_id: 'chat-7',
  created_at: 1763900000000,
  completed_at: 1763900000900,
  adapter_version: 3,
  messages: [{ role: 'user', content: 'How many minutes are in 3 hours?' }],
  response: '3 hours × 60 minutes = **180 minutes**.',
  reasoning: null,
  tool_calls: null,
  finish_reason: 'stop',
  prompt_tokens: 21,
  completion_tokens: 14,
  next_state: { role: 'user', text: 'thanks!' },
  closed: false,
  learn_note: null,
  feedback: { rating: 'up', hint: 'no bold text please', reject_judge_hint: false, updated_at: 1763900005000 },
  judgements: [
    {
      kind: 'prm',
      judge: 'base model (adapter off)',
      score: 1,
      hint: null,
      votes: [{ raw: 'The user thanks … \\boxed{1}', score: 1 }],
      created_at: 1763900006000,
    },
  ],
  samples: [
    {
      kind: 'both',
      reward: 1,
      reward_source: 'feedback',
      hint: 'no bold text please',
      hint_source: 'feedback',
      adapter_version: 3,
      status: 'trained',
      drop_reason: null,
      step: 4,
      response: 'turn',
    },
  ],
  receipt: {
    stage: 'live',
    score: 1,
    hint: 'no bold text please',
    hint_source: 'feedback',
    step: 4,
    checkpoint_id: 'step-000004',
    version: 4,
    reason: null,
    hint_until: null,
    feedback_open: false,
  },
};

const session = {
  id: 'chat-7',
  title: 'Unit conversions',
  created_at: 1763900000000,
  last_seen_at: 1763900000000,
  ended_at: null,
  end_reason: null,
  turns: 1,
  main_turns: 1,
  preview: 'How many minutes are in 3 hours?',
};

const status = {
  method: 'combine',
  state: 'idle',
  queued_samples: 1,
  pending_turns: 0,
  step: 4,
  adapter_version: 4,
  last_step: { ...metrics, step: 4, skipped: false, skip_reason: null },
  competence_gate: {
    on: true,
    detail:
      "on: each checkpoint answers all 240 prompts of clawloop_competence.jsonl and is held back when its accuracy falls more than 3.0 points below the best live policy, or its accuracy on one task family more than 15.0 points below the base model's",
    reference_accuracy: 0.896,
    held_back: 1,
  },
};

/** The bundled model's settings: the defaults with its clawloop_training.json on top. */
const config = { ...DEFAULT_TRAINING_CONFIG, ...CLAWLOOP_MINI_TRAINING };

export const EXAMPLES: Record<string, RouteExample> = {
  health: { response: { status: 'ok', model: 'clawloop-mini', running: 1, queued: 0 } },
  'models.list': {
    response: { object: 'list', data: [{ id: 'clawloop-mini', object: 'model', created: 0, owned_by: 'clawloop', context_length: 1024 }] },
  },
  'chat.completions': {
    headers: { 'X-Session-Id': 'chat-7', 'X-Turn-Type': 'main' },
    request: { model: 'clawloop-mini', messages: [{ role: 'user', content: 'How many minutes are in 3 hours?' }], max_tokens: 64 },
    response: {
      id: 'chatcmpl-5f0c2a9e8b7d41c3a2f1e0d9',
      object: 'chat.completion',
      created: 1763900000,
      model: 'clawloop-mini',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: '3 hours × 60 minutes = **180 minutes**.' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 21, completion_tokens: 14, total_tokens: 35, prompt_tokens_details: { cached_tokens: 0 } },
    },
  },
  feedback: {
    request: { completion_id: 'chatcmpl-5f0c2a9e8b7d41c3a2f1e0d9', rating: 'up', hint: 'no bold text please' },
    response: {
      completion_id: 'chatcmpl-5f0c2a9e8b7d41c3a2f1e0d9',
      rating: 'up',
      hint: 'no bold text please',
      reject_judge_hint: false,
      updated_at: 1763900005000,
      session_id: 'chat-7',
      turn_type: 'main',
      trainable: true,
    },
  },
  events: {
    headers: { 'Last-Event-ID': '41' },
    responseText: [
      'id: 42',
      'event: feedback.received',
      'data: {"turn_id":"chatcmpl-5f0c2a9e8b7d41c3a2f1e0d9","kind":"thumbs_up","text":null,"at":1763900005000}',
      '',
      'id: 43',
      'event: sample.judged',
      'data: {"turn_id":"chatcmpl-5f0c2a9e8b7d41c3a2f1e0d9","score":1,"score_source":"feedback","votes":[1],"hint":"no bold text please","method":"both","reason":null,"at":1763900006000}',
      '',
      ': heartbeat',
      '',
    ].join('\n'),
  },
  info: {
    response: {
      version: '0.1.0',
      model: {
        name: 'clawloop-mini',
        dir: '/opt/clawloop/resources/models/clawloop-mini',
        architecture: 'Qwen3ForCausalLM',
        parameters: 5430000,
        context_length: 1024,
        backend: 'native',
        backend_notes: ["clawloop: tfjs backend 'native' (tensors in native memory; openblas, 2 threads, 16-bit weights: widen)"],
      },
      memory: { rss_bytes: 412000000, heap_used_bytes: 61000000 },
      data_dir: '/home/ada/.clawloop',
      base_url: 'http://127.0.0.1:30000/v1',
      served_model_name: 'clawloop-mini',
      api_key_set: false,
      openclaw_provider: { models: { mode: 'merge', providers: { clawloop: { baseUrl: 'http://127.0.0.1:30000/v1' } } } },
      openclaw_note:
        'clawloop-mini reads 1024 tokens, and OpenClaw needs a model that reads at least 4000 (its leanest prompt alone is about 8,400 characters). Serve a model with a longer context to use OpenClaw: clawloop serve --model DIR (for example a Qwen3 folder). Other OpenAI clients work with this model as it is.',
      started_at: 1763899000000,
    },
  },
  'settings.get': {
    response: {
      model_dir: null,
      backend: null,
      data_dir: '/home/ada/.clawloop',
      restart_required: false,
      running: { model_dir: '/opt/clawloop/resources/models/clawloop-mini', backend: 'native' },
    },
  },
  'settings.update': {
    request: { model_dir: '/models/Qwen3-1.7B' },
    response: {
      model_dir: '/models/Qwen3-1.7B',
      backend: null,
      data_dir: '/home/ada/.clawloop',
      restart_required: true,
      running: { model_dir: '/opt/clawloop/resources/models/clawloop-mini', backend: 'native' },
    },
  },
  'settings.apiKey': {
    request: { regenerate: true },
    response: { api_key: 'clk-9f1c0e7a3b5d4e2f8a6c1b0d', session_proof: 'q8Zt2Lw0Xr5Vn7Ck1Hb4Jd9Fs3Ga6Pe' },
  },
  'auth.link': {
    params: { token: 'kX3v9Qm2R7tYw1bN5cH8dF0gJ4sL6pA' },
    response: { signed_in: true, session_proof: 'q8Zt2Lw0Xr5Vn7Ck1Hb4Jd9Fs3Ga6Pe' },
  },
  'auth.signOut': { response: { signed_in: false } },
  'auth.signIn': {
    request: { api_key: 'clk-9f1c0e7a3b5d4e2f8a6c1b0d' },
    response: { signed_in: true, session_proof: 'q8Zt2Lw0Xr5Vn7Ck1Hb4Jd9Fs3Ga6Pe' },
  },
  'training.status': { response: status },
  'training.config.get': { response: config },
  'training.config.update': {
    request: { batch_size: 8, learning_rate: 0.001 },
    response: { ...config, batch_size: 8, learning_rate: 0.001 },
  },
  'training.pause': { response: { ...status, state: 'paused' } },
  'training.resume': { response: status },
  'checkpoints.list': {
    response: {
      object: 'list',
      live_checkpoint: 'step-000004',
      adapter_version: 4,
      data: [
        {
          id: 'step-000004',
          step: 4,
          adapter_version: 4,
          parent_id: 'step-000003',
          created_at: 1763900010000,
          metrics,
          samples: metrics.samples,
          pinned: false,
          name: 'after the French lessons',
          note: null,
          live: true,
          competence: { accuracy: 0.892, n: 240, held_back: false, reason: null, seconds: 5.6 },
        },
      ],
      rollbacks: [],
    },
  },
  'checkpoints.rollback': { params: { id: 'step-000003' }, response: { checkpoint: 'step-000003', adapter_version: 5 } },
  'checkpoints.update': {
    params: { id: 'step-000004' },
    request: { name: 'after the French lessons' },
    response: { checkpoint: 'step-000004', name: 'after the French lessons', note: null },
  },
  'checkpoints.pin': { params: { id: 'step-000003' }, request: { pinned: true }, response: { checkpoint: 'step-000003', pinned: true } },
  'checkpoints.export': {
    params: { id: 'step-000004' },
    request: { format: 'peft' },
    response: {
      checkpoint: 'step-000004',
      format: 'peft',
      dir: '/home/ada/.clawloop/exports/step-000004',
      files: [
        '/home/ada/.clawloop/exports/step-000004/adapter_config.json',
        '/home/ada/.clawloop/exports/step-000004/adapter_model.safetensors',
      ],
    },
  },
  metrics: {
    query: 'since=3',
    response: {
      object: 'list',
      data: [
        {
          step: 4,
          created_at: 1763900010000,
          adapter_version: 4,
          checkpoint_id: 'step-000004',
          skipped: false,
          skip_reason: null,
          ...metrics,
        },
      ],
    },
  },
  'sessions.list': { response: { object: 'list', data: [session] } },
  'sessions.get': {
    params: { id: 'chat-7' },
    response: { ...Object.fromEntries(Object.entries(session).filter(([k]) => k !== 'main_turns')), turns: [turn] },
  },
  'sessions.update': { params: { id: 'chat-7' }, request: { title: 'Unit conversions' }, response: session },
  'sessions.delete': { params: { id: 'chat-7' }, response: { id: 'chat-7', deleted: true, turns: 1, samples_removed: 0 } },
  'sessions.end': {
    params: { id: 'chat-7' },
    request: { message: { role: 'user', content: 'thanks, that was it' } },
    response: { id: 'chat-7', ended: true, next_state_of: 'chatcmpl-5f0c2a9e8b7d41c3a2f1e0d9' },
  },
  'turns.list': { query: 'has_feedback=true&limit=1', response: { object: 'list', data: [turn], has_more: true } },
  'turns.get': { params: { id: 'chatcmpl-5f0c2a9e8b7d41c3a2f1e0d9' }, response: turn },
  'export.sessions': {
    responseText:
      JSON.stringify({
        session_id: 'chat-7',
        turns: [
          {
            type: 'main',
            prompt: '<|im_start|>user\nHow many minutes are in 3 hours?<|im_end|>\n<|im_start|>assistant\n',
            response: '3 hours × 60 minutes = **180 minutes**.',
            next_state: 'thanks!',
            trainable: true,
          },
        ],
      }) + '\n',
  },
  app: { params: { file: 'index.html' } },
};
