import { generate, Model, parseBackendName } from '../engine/index.js';
import { numberFlag, parse, required } from './args.js';
import { resolveModelDir } from './modelDir.js';
import type { Io } from './io.js';

export const GENERATE_USAGE = `Usage: clawloop generate [--model DIR] --prompt "…" [options]

Prints a completion of the prompt, streamed as it is generated. The model's chat template is
applied (the prompt is one user message) unless --raw is given.

  --model DIR          Hugging Face model folder (default: the bundled clawloop-mini)
  --prompt TEXT        the user message (or the raw text with --raw)
  --system TEXT        a system message (chat template only)
  --raw                feed the prompt as it is, without the chat template
  --max-tokens N       at most N new tokens (default 256)
  --temperature T      0 = greedy (default: generation_config.json, else 1)
  --top-p P            nucleus sampling, 0 < P <= 1 (default: generation_config.json, else 1)
  --top-k K            keep the K most likely tokens, 0 = off (default: generation_config.json, else 0)
  --seed S             makes sampling reproducible
  --backend NAME       native (default where the addon loads), wasm, cpu, webgpu or tensorflow; or env CLAWLOOP_BACKEND`;

export async function generateCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    model: { type: 'string' },
    prompt: { type: 'string' },
    system: { type: 'string' },
    raw: { type: 'boolean', default: false },
    'max-tokens': { type: 'string' },
    temperature: { type: 'string' },
    'top-p': { type: 'string' },
    'top-k': { type: 'string' },
    seed: { type: 'string' },
    backend: { type: 'string' },
  });
  const dir = resolveModelDir(values.model);
  const prompt = required(values.prompt, '--prompt');
  const maxNewTokens = numberFlag(values['max-tokens'], '--max-tokens', { min: 1, integer: true }) ?? 256;
  const temperature = numberFlag(values.temperature, '--temperature', { min: 0, max: 100 });
  const topP = numberFlag(values['top-p'], '--top-p', { min: Number.MIN_VALUE, max: 1 });
  const topK = numberFlag(values['top-k'], '--top-k', { min: 0, integer: true });
  const seed = numberFlag(values.seed, '--seed', { integer: true });
  const backend = values.backend ? parseBackendName(values.backend) : undefined;

  const model = await Model.load(dir, { backend, log: io.log });
  try {
    const ids = values.raw
      ? model.tokenizer.encode(prompt)
      : model.encodeChat({
          messages: [...(values.system ? [{ role: 'system' as const, content: values.system }] : []), { role: 'user', content: prompt }],
        }).ids;
    const g = model.generation;
    const it = generate(model.lm, model.tokenizer, ids, {
      maxNewTokens,
      temperature: temperature ?? g.temperature,
      topP: topP ?? g.topP,
      topK: topK ?? g.topK,
      seed,
      stopTokenIds: g.eosTokenIds,
    });
    let r = await it.next();
    while (!r.done) {
      io.out(r.value.text);
      r = await it.next();
    }
    const res = r.value;
    io.out('\n');
    const decodeRate = res.tokens.length > 1 ? ((res.tokens.length - 1) / res.decodeMs) * 1000 : 0;
    io.log(
      `${res.promptTokens} prompt tokens, ${res.tokens.length} generated (${res.finishReason}); ` +
        `prefill ${res.prefillMs.toFixed(0)} ms, decode ${decodeRate.toFixed(1)} tokens/s`,
    );
    return 0;
  } finally {
    model.dispose();
  }
}
