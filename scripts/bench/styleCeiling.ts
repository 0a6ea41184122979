/**
 * `npm run bench:style-ceiling [-- --model DIR --personas a,b --seeds 1,2,3 --json OUT]`: how
 * competent the model is in each answer style when asked for it, and how far each style goes
 * toward each persona's rules. With `combine` and `opd` the policy learns a preference from the
 * OPD teacher: the same model with the user's hint after the prompt. If the model answers less
 * accurately in the style a persona wants, a policy that has learned that style loses about that
 * much accuracy, and the competence gate (3 points by default) must hold it back; if no style
 * satisfies the persona's rules, imitating the teacher's style cannot reach the persona's bar
 * either. Either way the bar "score ≥ 0.85 with ≤ 3 points lost" then needs more than an update rule.
 *
 * Every prompt of the model's competence set (`clawloop_competence.jsonl`) is answered greedily,
 * as the gate answers it: once as asked, then once per style with one of the style hints the
 * model was trained to follow (scripts/default-model/feedback.ts), the hints taken in turn. Printed
 * per style: accuracy (all and per family) and the share of answers in the style asked for. Then
 * each persona's held-out questions (the ones `clawloop bench personalize` scores, for each seed)
 * are answered the same ways, greedily and sampled with the model's defaults (as the benchmark's
 * score samples them), and scored by the persona's rules.
 */
import fs from 'node:fs';
import os from 'node:os';
import { checkResponse, loadPersona, shippedPersonas, type Persona } from '../../main/personalize/persona.js';
import { DEFAULT_EVAL_PROMPTS, DEFAULT_MAX_TOKENS } from '../../main/personalize/personalize.js';
import { heldOutTasks } from '../../main/personalize/simulatedUser.js';
import { DecodeBatcher, generateText, Model, withHint, type ChatMessage } from '../../main/engine/index.js';
import { DEFAULT_TRAINING_CONFIG } from '../../main/protocol/training.js';
import { answerText, greedyAnswers } from '../../main/rl/competenceAnswers.js';
import { defaultModelDir } from '../../main/resources.js';
import { competenceAccuracy, competenceQuestions, loadCompetenceSet, type CompetenceItem } from '../../main/tasks/competenceSet.js';
import { loadKnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { HINTS, wantFor } from '../default-model/feedback.js';
import { classifyStyle, STYLES, type Style } from '../default-model/styles.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run bench:style-ceiling -- [--model DIR] [--personas a,b] [--seeds 1,2,3] [--json OUT]

How accurate the model is in each answer style when asked for it, and how far each style goes
toward each persona's rules.`;

type Asked = Style | 'as asked';
const ASKED: Asked[] = ['as asked', ...STYLES];

interface Row {
  style: Asked;
  accuracy: number;
  byFamily: Record<string, number>;
  /** Share of answers classified as the style asked for (null when no style was asked). */
  inStyle: number | null;
  seconds: number;
}

/** How an answer is decoded: greedily (as the gate does) or sampled with the model's defaults (as the benchmark's score does). */
type Decoding = 'greedy' | 'sampled';

interface PersonaRow {
  persona: string;
  questions: number;
  /** Share of the held-out questions whose answer satisfies every rule, per way of asking and decoding. */
  score: Record<Decoding, Record<Asked, number>>;
  /** How often each rule failed, over every way of asking, sampled. */
  failed: Record<string, number>;
}

/** The base model's answers, each conversation with a hint for `style` (hints taken in turn) after its last user turn. */
async function answersIn(model: Model, conversations: ChatMessage[][], style: Asked, maxTokens: number, decoding: Decoding = 'greedy'): Promise<string[]> {
  const hints = style === 'as asked' ? [] : HINTS[wantFor(style) as keyof typeof HINTS];
  const prompts = conversations.map((messages, i) => {
    const asked = hints.length ? withHint(messages, hints[i % hints.length]) : messages;
    return model.encodeChat({ messages: asked, addGenerationPrompt: true }).ids;
  });
  if (decoding === 'greedy') {
    const g = await greedyAnswers(model, null, prompts, { maxTokens });
    return g.ids.map((ids) => answerText(model, ids));
  }
  const { temperature, topP, topK } = model.generation;
  const batcher = new DecodeBatcher(model.lm);
  const done = await Promise.all(
    prompts.map((p, i) =>
      generateText(model.lm, model.tokenizer, p, {
        maxNewTokens: maxTokens,
        temperature: temperature ?? 1,
        topP,
        topK,
        seed: 1000 + i,
        stopTokenIds: model.generation.eosTokenIds,
        batcher,
      }),
    ),
  );
  return done.map((r) => answerText(model, r.tokens));
}

async function measure(model: Model, items: CompetenceItem[], style: Asked): Promise<Row> {
  const t0 = performance.now();
  const texts = await answersIn(model, items.map((it) => it.messages), style, DEFAULT_TRAINING_CONFIG.competence_max_tokens);
  const { accuracy, correct } = competenceAccuracy(items, texts);
  const byFamily: Record<string, number> = {};
  for (const family of new Set(items.map((it) => it.family ?? 'other'))) {
    const idx = items.flatMap((it, i) => ((it.family ?? 'other') === family ? [i] : []));
    byFamily[family] = idx.filter((i) => correct[i]).length / idx.length;
  }
  const inStyle = style === 'as asked' ? null : texts.filter((t) => classifyStyle(t) === style).length / texts.length;
  return { style, accuracy, byFamily, inStyle, seconds: (performance.now() - t0) / 1000 };
}

/** The questions `clawloop bench personalize --seed S` scores the persona on, for each seed. */
function heldOutQuestions(persona: Persona, seeds: number[], competence: CompetenceItem[], perSeed: number): string[] {
  const kb = loadKnowledgeBase();
  const exclude = competenceQuestions(competence);
  return seeds.flatMap((seed) => heldOutTasks(persona, seed, kb, perSeed, exclude).map((t) => t.question));
}

async function measurePersona(model: Model, persona: Persona, questions: string[]): Promise<PersonaRow> {
  const score: PersonaRow['score'] = { greedy: {} as Record<Asked, number>, sampled: {} as Record<Asked, number> };
  const failed: Record<string, number> = {};
  for (const decoding of ['greedy', 'sampled'] as const)
    for (const style of ASKED) {
      const texts = await answersIn(model, questions.map((q) => [{ role: 'user', content: q }]), style, DEFAULT_MAX_TOKENS, decoding);
      const checks = texts.map((t) => checkResponse(persona, t));
      score[decoding][style] = checks.filter((c) => c.ok).length / checks.length;
      if (decoding === 'sampled') for (const id of checks.flatMap((c) => c.failed)) failed[id] = (failed[id] ?? 0) + 1;
    }
  return { persona: persona.name, questions: questions.length, score, failed };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function styleTable(rows: Row[], n: number, cpu: string): string {
  const families = Object.keys(rows[0].byFamily).sort();
  const base = rows[0].accuracy;
  return [
    `Greedy answers to the ${n} prompts of the competence set, base model, on ${cpu} (${os.cpus().length} logical cores).`,
    '',
    `| Asked for | Accuracy | vs as asked | ${families.join(' | ')} | In that style |`,
    `|---|---|---|${families.map(() => '---|').join('')}---|`,
    ...rows.map(
      (r) =>
        `| ${r.style} | ${pct(r.accuracy)} | ${r === rows[0] ? '' : `${(100 * (r.accuracy - base)).toFixed(1)} points`} | ` +
        `${families.map((f) => pct(r.byFamily[f])).join(' | ')} | ${r.inStyle === null ? '' : pct(r.inStyle)} |`,
    ),
  ].join('\n');
}

function personaTable(rows: PersonaRow[], seeds: number[]): string {
  const fails = (r: PersonaRow) =>
    Object.entries(r.failed)
      .sort((a, b) => b[1] - a[1])
      .map(([id, n]) => `${id} ${n}`)
      .join(', ');
  return [
    `Each persona's held-out questions (seeds ${seeds.join(', ')}: the ones bench:personalize scores): the share whose answer satisfies every rule, greedy / sampled (the model's temperature and top-p, as the benchmark's score samples).`,
    '',
    `| Persona | Questions | ${ASKED.join(' | ')} | Rules failed (sampled, all ways of asking) |`,
    `|---|---|${ASKED.map(() => '---|').join('')}---|`,
    ...rows.map(
      (r) => `| ${r.persona} | ${r.questions} | ${ASKED.map((s) => `${r.score.greedy[s].toFixed(2)} / ${r.score.sampled[s].toFixed(2)}`).join(' | ')} | ${fails(r)} |`,
    ),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: {
      model: { type: 'string', default: defaultModelDir() },
      personas: { type: 'string', default: shippedPersonas().join(',') },
      seeds: { type: 'string', default: '1,2,3' },
      json: { type: 'string' },
    },
  });
  const set = loadCompetenceSet(values.model!);
  if (!set) throw new Error(`${values.model} has no competence set (clawloop_competence.jsonl); nothing to measure`);
  const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);
  if (!list(values.seeds!).every((s) => /^\d+$/.test(s)))
    throw new Error(`--seeds takes whole numbers separated by commas, such as 1,2,3 (got '${values.seeds}')`);
  const seeds = list(values.seeds!).map(Number);
  const personas = list(values.personas!).map((p) => loadPersona(p));
  if (!seeds.length || !personas.length) throw new Error('--seeds and --personas each need at least one value');
  const model = await Model.load(values.model!);
  const rows: Row[] = [];
  for (const style of ASKED) {
    rows.push(await measure(model, set.items, style));
    console.error(`${style}: ${pct(rows.at(-1)!.accuracy)} (${rows.at(-1)!.seconds.toFixed(0)} s)`);
  }
  const personaRows: PersonaRow[] = [];
  for (const persona of personas) {
    personaRows.push(await measurePersona(model, persona, heldOutQuestions(persona, seeds, set.items, DEFAULT_EVAL_PROMPTS)));
    const s = personaRows.at(-1)!.score;
    console.error(`${persona.name}: ${ASKED.map((a) => `${a} ${s.greedy[a].toFixed(2)} / ${s.sampled[a].toFixed(2)}`).join(', ')}`);
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(`${styleTable(rows, set.items.length, cpu)}\n\n${personaTable(personaRows, seeds)}`);
  if (values.json)
    fs.writeFileSync(values.json, JSON.stringify({ model: values.model, cpu, n: set.items.length, rows, seeds, personas: personaRows }, null, 2) + '\n');
}

await main();
