import { Model, parseBackendName, tokenLogprobs } from '../engine/index.js';
import { parse, UsageError } from './args.js';
import { resolveModelDir } from './modelDir.js';
import type { Io } from './io.js';

export const LOGPROBS_USAGE = `Usage: clawloop logprobs [--model DIR] (--text "…" | --ids 1,2,3) [--json] [--backend NAME]

Prints each token of the input with its id, its text and log p(token | all previous tokens)
(null for the first). No chat template and no BOS token are added: exactly the given tokens.

  --model DIR     Hugging Face model folder (config.json, *.safetensors, tokenizer.json) (default: the bundled clawloop-mini)
  --text TEXT     text to tokenize with the model's tokenizer
  --ids LIST      comma-separated token ids, used as given
  --json          print {"ids": [...], "logprobs": [null, ...]}
  --backend NAME  native (default where the addon loads), wasm, cpu, webgpu or tensorflow; or env CLAWLOOP_BACKEND`;

export async function logprobsCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    model: { type: 'string' },
    text: { type: 'string' },
    ids: { type: 'string' },
    json: { type: 'boolean', default: false },
    backend: { type: 'string' },
  });
  const dir = resolveModelDir(values.model);
  if ((values.text === undefined) === (values.ids === undefined)) throw new UsageError('give exactly one of --text or --ids');
  const backend = values.backend ? parseBackendName(values.backend) : undefined;
  const model = await Model.load(dir, { backend, log: io.log });
  try {
    let ids: number[];
    if (values.ids !== undefined) {
      ids = values.ids
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
        .map(Number);
      const bad = ids.find((id) => !Number.isInteger(id) || id < 0 || id >= model.config.vocabSize);
      if (bad !== undefined || ids.length === 0) {
        throw new UsageError(`--ids must be a comma-separated list of integers in [0, ${model.config.vocabSize}); got '${values.ids}'`);
      }
    } else {
      ids = model.tokenizer.encode(values.text!);
      if (ids.length === 0) throw new UsageError('--text tokenizes to no tokens');
    }
    const logprobs = await tokenLogprobs(model.lm, ids);
    if (values.json) {
      io.out(JSON.stringify({ ids, logprobs }) + '\n');
    } else {
      const width = String(Math.max(...ids)).length;
      ids.forEach((id, i) => {
        const text = JSON.stringify(model.tokenizer.decode([id]));
        const lp = logprobs[i] === null ? 'null' : (logprobs[i] as number).toFixed(6);
        io.out(`${String(i).padStart(4)}  ${String(id).padStart(width)}  ${lp.padStart(11)}  ${text}\n`);
      });
      const total = logprobs.reduce<number>((s, x) => s + (x ?? 0), 0);
      io.log(`${ids.length} tokens; total log p = ${total.toFixed(4)}`);
    }
    return 0;
  } finally {
    model.dispose();
  }
}
