/**
 * The provider entry to merge into ~/.openclaw/openclaw.json so OpenClaw talks to this server
 * (see docs/openclaw.md).
 */
export function openClawProvider(baseUrl: string, modelId: string, contextLength: number, apiKey: string | null): Record<string, unknown> {
  // OpenClaw refuses models with a context window under 16000 tokens. Longer prompts than the model
  // reads get a 400 "maximum context length" error, on which OpenClaw compacts and retries.
  const contextWindow = Math.max(contextLength, 16_000);
  return {
    models: {
      mode: 'merge',
      providers: {
        clawloop: {
          baseUrl,
          apiKey: apiKey ?? 'clawloop-local',
          api: 'openai-completions',
          models: [
            {
              id: modelId,
              name: `ClawLoop ${modelId}`,
              reasoning: false,
              input: ['text'],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow,
              maxTokens: Math.min(8192, contextLength),
            },
          ],
        },
      },
    },
    agents: { defaults: { model: { primary: `clawloop/${modelId}` } } },
  };
}
