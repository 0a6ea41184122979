/**
 * `npm run bench:personalize [-- --personas a,b --methods combine,rl,opd --seeds 1,2,3 --interactions N
 *   --out DIR --set KEY=VALUE --skip-existing --jobs N]`
 *
 * Runs `clawloop bench personalize` for every persona × method × seed (one fresh server each) and
 * writes each result as JSON. Then, from every result in the folder, a summary (summary.md: mean
 * and spread over the seeds, and every run) with the bars of issue 12 checked, and plots: every
 * persona with `combine` (personalize.png) and the methods side by side for each persona
 * (methods-<persona>.png), score and accuracy. `--skip-existing` keeps results already there (and
 * adds the command to the folder's run.json, so the summary names every command its runs came
 * from); `--jobs N` runs N benchmarks at a time, each in its own process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHANNELS, type Channel } from '../../main/personalize/funnel.js';
import { loadPersona, personaList } from '../../main/personalize/persona.js';
import { recordInvocation, runAll, type RunSpec } from './personalizeRuns.js';
import type { PersonalizeResult } from '../../main/personalize/personalize.js';
import { plotRuns } from '../../main/cli/benchCommand.js';
import { TRAIN_METHODS, type TrainMethod, type TrainingConfigPatch } from '../../main/protocol/training.js';
import { defaultModelDir } from '../../main/resources.js';
import { summarize } from './personalizeSummary.js';
import { scriptArgs } from '../scriptArgs.js';

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

const USAGE = `Usage: npm run bench:personalize -- [options]

Runs \`clawloop bench personalize\` for every persona × method × seed, then writes summary.md and
the plots from every result in the output folder.

  --personas a,b      shipped names, persona files, 'shipped' (every shipped persona) or 'blind'
                      (the held-out blind set, resources/personas/blind/; default: shipped)
  --methods a,b       combine, rl, opd, off (default: combine,rl,opd)
  --seeds 1,2,3       seeds (default: 1,2,3)
  --interactions N    model responses per run (default: 36)
  --channel C         implicit (the user's next message; default) or explicit (👍/👎 and a typed hint)
  --model DIR         the model folder (default: the bundled clawloop-mini)
  --out DIR           where results go (default: docs/bench)
  --set KEY=VALUE     a training setting over the model's recommended ones (repeatable)
  --skip-existing     keep results already in the folder
  --jobs N            runs at a time, each in its own process (default: 1)`;

/** The command line, checked before anything runs. */
function options() {
  const { values } = scriptArgs(USAGE, {
    options: {
      personas: { type: 'string', default: 'shipped' },
      methods: { type: 'string', default: 'combine,rl,opd' },
      interactions: { type: 'string', default: '36' },
      channel: { type: 'string', default: 'implicit' },
      seeds: { type: 'string', default: '1,2,3' },
      model: { type: 'string', default: defaultModelDir() },
      out: { type: 'string', default: 'docs/bench' },
      set: { type: 'string', multiple: true, default: [] },
      'skip-existing': { type: 'boolean', default: false },
      jobs: { type: 'string', default: '1' },
    },
  });
  const personas = personaList(values.personas!);
  const methods = values.methods!.split(',').filter(Boolean) as TrainMethod[];
  const seeds = values.seeds!.split(',').filter(Boolean).map(Number);
  for (const m of methods) if (!TRAIN_METHODS.includes(m)) throw new Error(`unknown method '${m}'; valid: ${TRAIN_METHODS.join(', ')}`);
  for (const name of personas) loadPersona(name); // a bad name or file stops here, before any run
  if (!CHANNELS.includes(values.channel as Channel)) throw new Error(`--channel must be one of ${CHANNELS.join(', ')}; got '${values.channel}'`);
  const jobs = Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs takes a whole number of at least 1; got '${values.jobs}'`);
  return { values, personas, methods, seeds, jobs, patch: trainingPatch(values.set!), out: path.resolve(values.out!) };
}

/** Plots and summary.md from every result in the folder, whichever command made it. */
function summarizeFolder(out: string, commands: string[]): void {
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
  const md = summarize(results, commands.join('` then `'));
  fs.writeFileSync(path.join(out, 'summary.md'), md);
  console.log(`\n${md}`);
}

async function main(): Promise<void> {
  const { values, personas, methods, seeds, jobs, patch, out } = options();
  fs.mkdirSync(out, { recursive: true });
  const command = `npm run bench:personalize -- ${process.argv.slice(2).join(' ')}`.trim();
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  const started = new Date().toISOString();
  const invocation = { command, seeds, personas, methods, patch, jobs, cpu, cores: os.cpus().length, started };
  const invocations = recordInvocation(out, values['skip-existing']!, invocation);
  const todo: RunSpec[] = [];
  for (const seed of seeds)
    for (const persona of personas)
      for (const method of methods) {
        const channel = values.channel === 'implicit' ? '' : `-${values.channel}`;
        const file = path.join(out, `personalize-${path.basename(persona, '.json')}-${method}${channel}-s${seed}.json`);
        if (values['skip-existing'] && fs.existsSync(file)) console.log(`=== ${persona} · ${method} · seed ${seed}: kept ${path.relative(process.cwd(), file)}`);
        else todo.push({ persona, method, seed, file });
      }
  const cli = ['bench', 'personalize', '--interactions', values.interactions!, '--channel', values.channel!, '--model', path.resolve(values.model!), '--curve-every', '12'];
  for (const kv of values.set!) cli.push('--set', kv);
  await runAll(todo, jobs, cli);
  summarizeFolder(out, invocations.map((i) => i.command));
}

await main();
