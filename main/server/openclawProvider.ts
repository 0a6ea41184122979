/**
 * The configuration to merge into OpenClaw's `~/.openclaw/openclaw.json` so that OpenClaw (as
 * published, 2026.9.x) talks to this server and ClawLoop can learn from it (docs/openclaw.md).
 */

/** OpenClaw 2026.9.x refuses a model whose `contextWindow` is smaller ("Minimum is 4000"). */
export const OPENCLAW_MIN_CONTEXT = 4000;

/**
 * Below this window OpenClaw's default prompt (about 41,000 characters of instructions and
 * workspace files, and 12 tools) leaves no room for a conversation, so the entry also switches
 * OpenClaw to its leanest prompt: no bootstrap files, no skills, the minimal tool profile, no tool
 * search (about 8,400 characters).
 */
export const OPENCLAW_LEAN_BELOW = 32_768;

/** The share of the window an answer may take: an eighth, between 256 and 4,096 tokens. */
export function answerBudget(contextLength: number): number {
  return Math.max(256, Math.min(4096, Math.floor(contextLength / 8)));
}

/** OpenClaw's own settings for its leanest system prompt (agents.defaults.* and tools.*). */
const LEAN_AGENT_DEFAULTS = { skipBootstrap: true, skills: [] as string[] };
const LEAN_TOOLS = { profile: 'minimal', toolSearch: false };

export interface OpenClawEntryInput {
  baseUrl: string;
  modelId: string;
  /** The served model's real context window, in tokens. */
  contextLength: number;
  apiKey: string | null;
}

/** The JSON to merge into openclaw.json: the provider, the model as the default, and the prompt settings the window needs. */
export function openClawProvider({ baseUrl, modelId, contextLength, apiKey }: OpenClawEntryInput): Record<string, unknown> {
  const lean = contextLength < OPENCLAW_LEAN_BELOW;
  const model = {
    id: modelId,
    name: `ClawLoop ${modelId}`,
    reasoning: false,
    input: ['text'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: contextLength,
    maxTokens: answerBudget(contextLength),
    // OpenClaw then names its session in `session_id` / `x-session-affinity` on every call.
    compat: { sendSessionAffinityHeaders: true },
  };
  return {
    models: {
      mode: 'merge',
      providers: {
        clawloop: { baseUrl, apiKey: apiKey ?? 'clawloop-local', api: 'openai-completions', models: [model] },
      },
    },
    agents: { defaults: { model: { primary: `clawloop/${modelId}` }, ...(lean ? LEAN_AGENT_DEFAULTS : {}) } },
    ...(lean ? { tools: LEAN_TOOLS } : {}),
  };
}

/**
 * What a user must know before pointing OpenClaw at this model, or null when it fits: a window
 * under OpenClaw's minimum is refused by OpenClaw, so the entry would not load.
 */
export function openClawFitNote(modelName: string, contextLength: number): string | null {
  if (contextLength >= OPENCLAW_MIN_CONTEXT) return null;
  return (
    `${modelName} reads ${contextLength} tokens, and OpenClaw needs a model that reads at least ${OPENCLAW_MIN_CONTEXT} ` +
    `(its leanest prompt alone is about 8,400 characters). Serve a model with a longer context to use OpenClaw: ` +
    `clawloop serve --model DIR (for example a Qwen3 folder). Other OpenAI clients work with this model as it is.`
  );
}
