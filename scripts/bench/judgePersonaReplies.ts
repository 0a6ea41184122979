/**
 * `npm run bench:judge-replies [-- --model DIR --bench DIR]`: how the judge the model's training
 * settings name (the bundled model's own `judge/`; else the model itself) reads each persona's
 * replies. The personalization benchmark gives ClawLoop nothing but the
 * user's words, so a reply the judge misreads turns a good answer into a −1 (and usually a hint
 * for a fault it does not have). This measures it directly.
 *
 * For every persona, answers the model gave in a benchmark run (`--bench`, default docs/bench: the
 * `eval_before`/`eval_after` answers of the run files, each marked satisfying or not by the
 * persona's rules) are paired with each of the persona's replies: a satisfying answer with every
 * `satisfied` phrase, an unsatisfying one with every phrase for the rule it broke first. The PRM
 * judge (its judge prompts, temperature 0.6, one vote as `combine` uses) reads each pair with three seeds, and so does the hint judge. Printed: per persona and per
 * phrase, the share of PRM votes that agree (+1 after a thank-you, −1 after a complaint) and the
 * share of hint-judge votes that give a hint (it should after a complaint, not after a thank-you).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Model } from '../../main/engine/index.js';
import { loadPersona, shippedPersonas, type Persona } from '../../main/personalize/persona.js';
import { runHintJudge, runPrmJudge } from '../../main/rl/judge.js';
import { loadJudge } from '../../main/rl/judgeSetup.js';
import { modelTrainingDefaults } from '../../main/rl/trainingConfig.js';
import { defaultModelDir } from '../../main/resources.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run bench:judge-replies -- [--model DIR] [--bench DIR]

How the model's judge reads each persona's replies (PRM votes and hints), from a benchmark's answers.
  --model DIR   the model folder (default: the bundled clawloop-mini; its training settings name the judge)
  --bench DIR   the benchmark results whose answers are used (default: docs/bench)`;

const SEEDS = [1, 2, 3];
const ANSWERS_PER_KIND = 2;

interface RunSample {
  response: string;
  satisfied: boolean;
  failed: string[];
}

/** Answers of the persona from the benchmark's run files: satisfying ones and unsatisfying ones. */
function answers(benchDir: string, persona: string): { good: RunSample[]; bad: RunSample[] } {
  // Sorted: the order a folder lists its files in is the file system's, and it picks the answers.
  const files = fs
    .readdirSync(benchDir)
    .filter((f) => f.startsWith(`personalize-${persona}-`) && f.endsWith('.json'))
    .sort();
  const all: RunSample[] = files.flatMap((f) => {
    const run = JSON.parse(fs.readFileSync(path.join(benchDir, f), 'utf8')) as { eval_before: RunSample[]; eval_after: RunSample[] };
    return [...run.eval_after, ...run.eval_before];
  });
  return { good: all.filter((s) => s.satisfied).slice(0, ANSWERS_PER_KIND), bad: all.filter((s) => !s.satisfied).slice(0, ANSWERS_PER_KIND) };
}

/** What the two judges make of one reply after one answer, with one seed. */
type Judges = (response: string, reply: string, seed: number) => Promise<{ score: number; hinted: boolean }>;

interface Tally {
  agree: number;
  hinted: number;
  n: number;
}

/** PRM votes that read `reply` after each answer as `expected`, and hint-judge votes that gave a hint. */
async function tally(judge: Judges, answersFor: RunSample[], reply: string, expected: 1 | -1): Promise<Tally> {
  const t: Tally = { agree: 0, hinted: 0, n: 0 };
  for (const a of answersFor)
    for (const seed of SEEDS) {
      const v = await judge(a.response, reply, seed);
      t.agree += v.score === expected ? 1 : 0;
      t.hinted += v.hinted ? 1 : 0;
      t.n++;
    }
  return t;
}

async function judgePersona(p: Persona, benchDir: string, judge: Judges) {
  const { good, bad } = answers(benchDir, p.name);
  const lines: string[] = [];
  const totals = { thanks: { agree: 0, hinted: 0, n: 0 }, complaints: { agree: 0, hinted: 0, n: 0 } };
  const add = (t: Tally, x: Tally) => ((t.agree += x.agree), (t.hinted += x.hinted), (t.n += x.n));
  if (good.length)
    for (const reply of p.satisfied) {
      const a = await tally(judge, good, reply, 1);
      add(totals.thanks, a);
      lines.push(`  +1 ${a.agree}/${a.n}  hint ${a.hinted}/${a.n}  "${reply}"`);
    }
  for (const answer of bad) {
    const rule = answer.failed[0];
    for (const reply of p.violated[rule] ?? p.violated.default) {
      const a = await tally(judge, [answer], reply, -1);
      add(totals.complaints, a);
      lines.push(`  -1 ${a.agree}/${a.n}  hint ${a.hinted}/${a.n}  "${reply}" (${rule})`);
    }
  }
  const pct = (x: number, n: number) => (n ? `${((100 * x) / n).toFixed(0)} %` : '–');
  const { thanks: t, complaints: c } = totals;
  const head =
    `${p.name}: thank-yous read as +1 ${pct(t.agree, t.n)} of ${t.n}, complaints read as -1 ${pct(c.agree, c.n)} of ${c.n}; ` +
    `hints after complaints ${pct(c.hinted, c.n)}, after thank-yous ${pct(t.hinted, t.n)}`;
  return { head, lines, totals };
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, { options: { model: { type: 'string' }, bench: { type: 'string', default: 'docs/bench' } } });
  const modelDir = path.resolve(values.model ?? defaultModelDir());
  const model = await Model.load(modelDir);
  // The judge the model's training settings name: the bundled model's own, else the model itself.
  const { backend, prompts, model: judgeModel } = await loadJudge(modelTrainingDefaults(modelDir).judge, model, modelDir);
  const judge: Judges = async (response, reply, seed) => {
    const c = { response, toolCalls: [], nextStateRole: 'user' as const, nextStateText: reply };
    const o = { votes: 1, temperature: 0.6, maxTokens: 256, seed };
    const prm = await runPrmJudge(backend, prompts, c, o);
    const hint = await runHintJudge(backend, prompts, c, o);
    return { score: prm.score, hinted: hint.hint !== null };
  };
  console.log(`PRM and hint judges (${backend.description}) on the personas' replies (${os.cpus()[0]?.model ?? 'unknown CPU'})`);
  for (const name of shippedPersonas()) {
    const r = await judgePersona(loadPersona(name), values.bench!, judge);
    console.log(r.head);
    for (const l of r.lines) console.log(l);
  }
  judgeModel?.dispose();
  model.dispose();
}

await main();
