/**
 * `npm run bench:style-ceiling [-- --model DIR --json OUT]`: how competent the model is in each
 * answer style, when asked for it. With `combine` and `opd` the policy learns a preference from
 * the OPD teacher: the same model with the user's hint after the prompt. If the model answers less
 * accurately in the style a persona wants, a policy that has learned that style loses about that
 * much accuracy, and the competence gate (3 points by default) must hold it back: the bar "score
 * ≥ 0.85 with ≤ 3 points lost" cannot be met by any update rule, only by a better model.
 *
 * Every prompt of the model's competence set (`clawloop_competence.jsonl`) is answered greedily,
 * as the gate answers it: once as asked, then once per style with one of the style hints the
 * model was trained to follow (scripts/default-model/feedback.ts), the hints taken in turn. Printed
 * per style: accuracy (all and per family) and the share of answers in the style asked for.
 */
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Model, withHint } from '../../main/engine/index.js';
import { DEFAULT_TRAINING_CONFIG } from '../../main/protocol/training.js';
import { answerText, greedyAnswers } from '../../main/rl/competenceAnswers.js';
import { defaultModelDir } from '../../main/resources.js';
import { competenceAccuracy, loadCompetenceSet, type CompetenceItem } from '../../main/tasks/competenceSet.js';
import { HINTS, wantFor } from '../default-model/feedback.js';
import { classifyStyle, STYLES, type Style } from '../default-model/styles.js';

interface Row {
  style: Style | 'as asked';
  accuracy: number;
  byFamily: Record<string, number>;
  /** Share of answers classified as the style asked for (null when no style was asked). */
  inStyle: number | null;
  seconds: number;
}

async function measure(model: Model, items: CompetenceItem[], style: Style | null): Promise<Row> {
  const t0 = performance.now();
  const hints = style ? HINTS[wantFor(style) as keyof typeof HINTS] : [];
  const prompts = items.map((it, i) => {
    const messages = style ? withHint(it.messages, hints[i % hints.length]) : it.messages;
    return model.encodeChat({ messages, addGenerationPrompt: true }).ids;
  });
  const g = await greedyAnswers(model, null, prompts, { maxTokens: DEFAULT_TRAINING_CONFIG.competence_max_tokens });
  const texts = g.ids.map((ids) => answerText(model, ids));
  const { accuracy, correct } = competenceAccuracy(items, texts);
  const byFamily: Record<string, number> = {};
  for (const family of new Set(items.map((it) => it.family ?? 'other'))) {
    const idx = items.flatMap((it, i) => ((it.family ?? 'other') === family ? [i] : []));
    byFamily[family] = idx.filter((i) => correct[i]).length / idx.length;
  }
  const inStyle = style ? texts.filter((t) => classifyStyle(t) === style).length / texts.length : null;
  return { style: style ?? 'as asked', accuracy, byFamily, inStyle, seconds: (performance.now() - t0) / 1000 };
}

function table(rows: Row[], n: number, cpu: string): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  const families = Object.keys(rows[0].byFamily).sort();
  const base = rows[0].accuracy;
  const lines = [
    `Greedy answers to the ${n} prompts of the competence set, base model, on ${cpu} (${os.cpus().length} logical cores).`,
    '',
    `| Asked for | Accuracy | vs as asked | ${families.join(' | ')} | In that style |`,
    `|---|---|---|${families.map(() => '---|').join('')}---|`,
    ...rows.map(
      (r) =>
        `| ${r.style} | ${pct(r.accuracy)} | ${r === rows[0] ? '' : `${(100 * (r.accuracy - base)).toFixed(1)} points`} | ` +
        `${families.map((f) => pct(r.byFamily[f])).join(' | ')} | ${r.inStyle === null ? '' : pct(r.inStyle)} |`,
    ),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { model: { type: 'string', default: defaultModelDir() }, json: { type: 'string' } } });
  const set = loadCompetenceSet(values.model!);
  if (!set) throw new Error(`${values.model} has no competence set (clawloop_competence.jsonl); nothing to measure`);
  const model = await Model.load(values.model!);
  const rows: Row[] = [];
  for (const style of [null, ...STYLES]) {
    rows.push(await measure(model, set.items, style));
    console.error(`${rows.at(-1)!.style}: ${(100 * rows.at(-1)!.accuracy).toFixed(1)} % (${rows.at(-1)!.seconds.toFixed(0)} s)`);
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(table(rows, set.items.length, cpu));
  if (values.json) fs.writeFileSync(values.json, JSON.stringify({ model: values.model, cpu, n: set.items.length, rows }, null, 2) + '\n');
}

await main();
