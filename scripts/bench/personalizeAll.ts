/**
 * `npm run bench:personalize [-- --personas a,b --methods combine,rl,opd --seeds 1,2,3 --interactions N
 *   --out DIR --set KEY=VALUE --skip-existing]`
 *
 * Runs `clawloop bench personalize` for every persona × method × seed (one fresh server each) and
 * writes each result as JSON. Then, from every result in the folder, a summary (summary.md: mean
 * and spread over the seeds, and every run) with the bars of issue 12 checked, and plots: every
 * persona with `combine` (personalize.png) and the methods side by side for each persona
 * (methods-<persona>.png), score and accuracy. `--skip-existing` keeps results already there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadPersona, shippedPersonas } from '../../main/bench/persona.js';
import { runPersonalize, type PersonalizeResult } from '../../main/bench/personalize.js';
import { plotRuns } from '../../main/cli/benchCommand.js';
import { TRAIN_METHODS, type TrainMethod, type TrainingConfigPatch } from '../../main/protocol/training.js';
import { defaultModelDir } from '../../main/resources.js';
import { summarize } from './personalizeSummary.js';

function trainingPatch(sets: string[]): TrainingConfigPatch {
  const patch: Record<string, unknown> = {};
  for (const kv of sets) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new Error(`--set takes KEY=VALUE; got '${kv}'`);
    const raw = kv.slice(eq + 1);
    try {
      patch[kv.slice(0, eq)] = JSON.parse(raw);
    } catch {
      patch[kv.slice(0, eq)] = raw;
    }
  }
  return patch as TrainingConfigPatch;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      personas: { type: 'string', default: shippedPersonas().join(',') },
      methods: { type: 'string', default: 'combine,rl,opd' },
      interactions: { type: 'string', default: '36' },
      seeds: { type: 'string', default: '1,2,3' },
      model: { type: 'string', default: defaultModelDir() },
      out: { type: 'string', default: 'docs/bench' },
      set: { type: 'string', multiple: true, default: [] },
      'skip-existing': { type: 'boolean', default: false },
    },
  });
  const personas = values.personas!.split(',').filter(Boolean);
  const methods = values.methods!.split(',').filter(Boolean) as TrainMethod[];
  const seeds = values.seeds!.split(',').filter(Boolean).map(Number);
  for (const m of methods) if (!TRAIN_METHODS.includes(m)) throw new Error(`unknown method '${m}'; valid: ${TRAIN_METHODS.join(', ')}`);
  const patch = trainingPatch(values.set!);
  const out = path.resolve(values.out!);
  fs.mkdirSync(out, { recursive: true });
  const command = `npm run bench:personalize -- ${process.argv.slice(2).join(' ')}`.trim();
  fs.writeFileSync(
    path.join(out, 'run.json'),
    `${JSON.stringify({ command, seeds, personas, methods, patch, cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length }, null, 2)}\n`,
  );
  for (const seed of seeds) {
    for (const name of personas) {
      for (const method of methods) {
        const file = path.join(out, `personalize-${name}-${method}-s${seed}.json`);
        if (values['skip-existing'] && fs.existsSync(file)) {
          console.log(`\n=== ${name} · ${method} · seed ${seed}: kept ${path.relative(process.cwd(), file)}`);
          continue;
        }
        console.log(`\n=== ${name} · ${method} · seed ${seed}`);
        const r = await runPersonalize({
          persona: loadPersona(name),
          method,
          interactions: Number(values.interactions),
          seed,
          modelDir: path.resolve(values.model!),
          evalPrompts: 50,
          curveEvery: 12,
          pace: true,
          maxTokens: 256,
          trainingPatch: patch,
          keepData: false,
          log: (l) => console.log(l),
        });
        fs.writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
        console.log(
          `${name} ${method} s${seed}: score ${r.score_before.toFixed(2)} -> ${r.score_after.toFixed(2)}, accuracy ${r.accuracy_before.toFixed(3)} -> ${r.accuracy_after.toFixed(3)}, 3 in a row after ${r.sessions_to_3_in_a_row ?? '—'} sessions, ${r.gate.held_back} held back, ${(r.wall_s / 60).toFixed(1)} min`,
        );
      }
    }
  }
  const results = fs
    .readdirSync(out)
    .filter((f) => /^personalize-.+\.json$/.test(f))
    .map((f) => JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')) as PersonalizeResult);
  const order = (r: PersonalizeResult) => ['combine', 'rl', 'opd', 'off'].indexOf(r.method);
  results.sort((a, b) => a.persona.localeCompare(b.persona) || order(a) - order(b) || a.seed - b.seed);
  const first = results.filter((r) => r.seed === Math.min(...results.map((x) => x.seed)));
  const combine = first.filter((r) => r.method === 'combine');
  if (combine.length) plotRuns(combine, path.join(out, 'personalize.png'), `personalization with combine (seed ${combine[0].seed})`);
  for (const name of new Set(first.map((r) => r.persona))) {
    const runs = first.filter((r) => r.persona === name);
    if (runs.length > 1) plotRuns(runs, path.join(out, `methods-${name}.png`), `${name}: methods (seed ${runs[0].seed})`);
  }
  const md = summarize(results, command);
  fs.writeFileSync(path.join(out, 'summary.md'), md);
  console.log(`\n${md}`);
}

await main();
