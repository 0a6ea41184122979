/**
 * `npm run bench:personalize [-- --personas a,b --methods combine,rl,opd --interactions N --out DIR --skip-existing]`
 *
 * Runs `clawloop bench personalize` for every persona × method (one fresh server each) and writes
 * each result as JSON. Then, from every result in the folder (earlier runs too), a summary table
 * (summary.md) and plots: every persona with `combine` (personalize.png), and the methods side by
 * side for each persona (methods-<persona>.png). `--skip-existing` keeps results already there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadPersona, shippedPersonas } from '../../main/bench/persona.js';
import { runPersonalize, type PersonalizeResult } from '../../main/bench/personalize.js';
import { plotRuns } from '../../main/cli/benchCommand.js';
import { TRAIN_METHODS, type TrainMethod } from '../../main/protocol/training.js';
import { defaultModelDir } from '../../main/resources.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      personas: { type: 'string', default: shippedPersonas().join(',') },
      methods: { type: 'string', default: 'combine,rl,opd' },
      interactions: { type: 'string', default: '36' },
      seed: { type: 'string', default: '1' },
      model: { type: 'string', default: defaultModelDir() },
      out: { type: 'string', default: 'docs/bench' },
      'skip-existing': { type: 'boolean', default: false },
    },
  });
  const personas = values.personas!.split(',').filter(Boolean);
  const methods = values.methods!.split(',').filter(Boolean) as TrainMethod[];
  for (const m of methods) if (!TRAIN_METHODS.includes(m)) throw new Error(`unknown method '${m}'; valid: ${TRAIN_METHODS.join(', ')}`);
  const out = path.resolve(values.out!);
  fs.mkdirSync(out, { recursive: true });
  for (const name of personas) {
    for (const method of methods) {
      const file = path.join(out, `personalize-${name}-${method}.json`);
      if (values['skip-existing'] && fs.existsSync(file)) {
        console.log(`\n=== ${name} · ${method}: kept ${path.relative(process.cwd(), file)}`);
        continue;
      }
      console.log(`\n=== ${name} · ${method}`);
      const r = await runPersonalize({
        persona: loadPersona(name),
        method,
        interactions: Number(values.interactions),
        seed: Number(values.seed),
        modelDir: path.resolve(values.model!),
        evalPrompts: 50,
        curveEvery: 6,
        pace: true,
        maxTokens: 256,
        keepData: false,
        log: (l) => console.log(l),
      });
      fs.writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
      console.log(
        `${name} ${method}: score ${r.score_before.toFixed(2)} -> ${r.score_after.toFixed(2)}, accuracy ${r.accuracy_before.toFixed(2)} -> ${r.accuracy_after.toFixed(2)}, 3 in a row after ${r.sessions_to_3_in_a_row ?? '—'} sessions, ${(r.wall_s / 60).toFixed(1)} min`,
      );
    }
  }
  summarize(out);
}

/** The table and plots of every result in `out`, methods in a fixed order. */
function summarize(out: string): void {
  const order = (r: PersonalizeResult) => ['combine', 'rl', 'opd', 'off'].indexOf(r.method);
  const results = fs
    .readdirSync(out)
    .filter((f) => /^personalize-.+\.json$/.test(f))
    .map((f) => JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')) as PersonalizeResult)
    .sort((a, b) => a.persona.localeCompare(b.persona) || order(a) - order(b));
  const combine = results.filter((r) => r.method === 'combine');
  if (combine.length) plotRuns(combine, path.join(out, 'personalize.png'), 'personalization with combine');
  for (const name of new Set(results.map((r) => r.persona))) {
    const runs = results.filter((r) => r.persona === name);
    if (runs.length > 1) plotRuns(runs, path.join(out, `methods-${name}.png`), `${name}: methods`);
  }
  const rows = results.map(
    (r) =>
      `| ${r.persona} | ${r.method} | ${r.score_before.toFixed(2)} → ${r.score_after.toFixed(2)} | ${(100 * r.accuracy_before).toFixed(0)} % → ${(100 * r.accuracy_after).toFixed(0)} % | ${r.sessions_to_3_in_a_row ?? 'never'} | ${r.training.steps} | ${(r.wall_s / 60).toFixed(1)} min |`,
  );
  const table = `| Persona | Method | Score | Task accuracy | Sessions to 3 in a row | Steps | Wall time |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}\n`;
  fs.writeFileSync(path.join(out, 'summary.md'), table);
  console.log(`\n${table}`);
}

await main();
