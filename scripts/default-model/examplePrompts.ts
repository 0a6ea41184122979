/**
 * Which first-launch example prompts the bundled model answers right: each candidate greedy once
 * and sampled N times at the model's generation_config.json (what the app asks with), marked by
 * its last number. The shipped ones (main/protocol/bundledModel.ts) come first.
 *
 *   node dist/scripts/default-model/examplePrompts.js [--samples N] [--model DIR]
 */
import { generateText } from '../../main/engine/generation/generate.js';
import { Model } from '../../main/engine/model/model.js';
import { defaultModelDir } from '../../main/resources.js';
import { runCheck } from '../../main/tasks/competenceCheck.js';
import { CLAWLOOP_MINI_EXAMPLE_PROMPTS as EXAMPLE_PROMPTS, type ExamplePrompt } from '../../main/protocol/bundledModel.js';

/** Prompts tried besides the shipped ones: the walk's two wrong ones first (issue 42 walk, finding 4). */
const CANDIDATES: ExamplePrompt[] = [
  { prompt: 'Convert 2 km to meters.', answer: 2000 },
  { prompt: 'A box holds 12 eggs. How many eggs are in 4 boxes?', answer: 48 },
  { prompt: 'How many centimeters are in 5 meters?', answer: 500 },
  { prompt: 'What is 3 days in hours?', answer: 72 },
  { prompt: 'Mia has 4 boxes with 12 eggs in each. How many eggs does she have?', answer: 48 },
  { prompt: 'Mia has 4 boxes with 12 stickers in each. She gives 8 to a friend. How many stickers does she have now?', answer: 40 },
];

/** One answer to `prompt`: greedy when `seed` is undefined, else sampled at the model's settings. */
export async function answer(model: Model, prompt: string, seed?: number): Promise<string> {
  const ids = model.encodeChat({ messages: [{ role: 'user', content: prompt }] }).ids;
  const g = model.generation;
  const sampling = seed === undefined ? { temperature: 0 } : { temperature: g.temperature, topP: g.topP, topK: g.topK, seed };
  const r = await generateText(model.lm, model.tokenizer, ids, { ...sampling, maxNewTokens: 200, stopTokenIds: g.eosTokenIds });
  return r.text;
}

export const isRight = (e: ExamplePrompt, text: string) => runCheck({ type: 'last_number', value: e.answer }, text);

async function main() {
  const args = process.argv.slice(2);
  const at = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const samples = Number(at('--samples') ?? 5);
  const model = await Model.load(at('--model') ?? defaultModelDir());
  const g = model.generation;
  console.log(`${model.dir}: greedy, and ${samples} samples at temperature ${g.temperature}, top_p ${g.topP}, top_k ${g.topK ?? 'off'}`);
  try {
    for (const [i, e] of [...EXAMPLE_PROMPTS, ...CANDIDATES].entries()) {
      const shipped = i < EXAMPLE_PROMPTS.length ? 'shipped' : 'candidate';
      const greedy = await answer(model, e.prompt);
      let right = 0;
      const wrong: string[] = [];
      for (let s = 0; s < samples; s++) {
        const text = await answer(model, e.prompt, 1000 + s);
        if (isRight(e, text)) right++;
        else wrong.push(text.replace(/\s+/g, ' ').slice(0, 120));
      }
      console.log(`${shipped.padEnd(9)} greedy ${isRight(e, greedy) ? 'right' : 'WRONG'}, sampled ${right}/${samples}: ${e.prompt}`);
      for (const w of wrong) console.log(`          wrong: ${w}`);
    }
  } finally {
    model.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
