/** Writes the default model's MODEL_CARD.md from its training log and evaluation report. */
import fs from 'node:fs';
import path from 'node:path';
import type { EvalReport } from './evalReport.js';
import { DEFAULT_MODEL_NAME, SEEDS, type Recipe } from './modelSpec.js';
import { STYLES } from './styles.js';

interface TrainingLog {
  recipe: Recipe;
  steps: number;
  tokens: number;
  train_minutes: number;
  history: Array<{ step: number; loss: number }>;
  continued_at?: { examples: number; pools: number } | null;
  grading_at?: { examples: number; pools: number } | null;
  judge_at?: { examples: number; pools: number } | null;
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const check = (x: number, target: number) => (x >= target ? '✅' : '❌');

/** The second phase of training (recipe.continuation), when the model had one. */
function continuationText(log: TrainingLog): string {
  const c = log.recipe.continuation;
  if (!c || !log.continued_at) return '';
  return ` From step ${c.atStep} (example ${log.continued_at.examples.toLocaleString('en-US')}) on, a second phase: a fresh
AdamW, a warm-up to ${c.lr} over ${c.warmupSteps} steps and a cosine decay to ${Number((log.recipe.minLrRatio * c.lr).toPrecision(3))}, and terse answers that
keep their working on their one line (\`4 × 8 = 32, 32 - 15 = 17: 17 marbles.\`). Before it, terse answers gave the result
alone, and asked for one-line answers the model got 0 % of arithmetic right: it cannot add and multiply without writing the
steps down.`;
}

/** The third phase (recipe.gradingContinuation), when the model had one. */
function gradingText(log: TrainingLog): string {
  const g = log.recipe.gradingContinuation;
  if (!g || !log.grading_at) return '';
  return ` From step ${g.atStep} (example ${log.grading_at.examples.toLocaleString('en-US')}) on, a third phase begun the same
way (warm-up to ${g.lr}), in which grading comments in every style work the problem out and compare the pupil's answer with
the result as a subtraction before the verdict (\`Ava answered 37, and 37 - 27 = 10, so it is not correct\`). Before it,
every style opened with the verdict, which the model had to guess: greedy, it graded 56 % of the competence set's comments
right, and 23 % asked for warmth.`;
}

/** The judge's phase (recipe.judge), when the model has a judge of its own. */
function judgeText(log: TrainingLog, judgeLog: TrainingLog | null, folder: string): string {
  const j = log.recipe.judge;
  if (!j || !judgeLog?.judge_at) return '';
  return `

**Its judge** (\`${folder}/\`, the judge in \`clawloop_training.json\`) is this model trained on for ${j.steps} more steps, to step
${judgeLog.steps}, from example ${judgeLog.judge_at.examples.toLocaleString('en-US')} of the stream: a phase begun the same way (warm-up to
${j.lr}), with four judge examples in five (most of them for the hint judge) and a third phrase set: praise that names what it praises, often in the
words complaints use ("Short and to the point.", "No bold and no lists, good.", "Kind and clear, thanks."), and praise that
says the answer sufficed ("That covers it."). Before it, the PRM read a third to two thirds of the shipped personas'
thank-yous as complaints (\`npm run bench:judge-replies\`), so learning pushed good answers down. The phase stays out of the
model itself: trained into it, it also moved the styles the model writes unprompted (warm answers 3.0 → 1.3 % of 400).`;
}

/** Bytes of every file in a folder and its subfolders. */
export function folderBytes(dir: string): number {
  return fs.readdirSync(dir, { withFileTypes: true }).reduce((s, f) => {
    const p = path.join(dir, f.name);
    return s + (f.isDirectory() ? folderBytes(p) : fs.statSync(p).size);
  }, 0);
}

export function writeModelCard(dir: string, e: EvalReport): void {
  const log = JSON.parse(fs.readFileSync(path.join(dir, 'training_log.json'), 'utf8')) as TrainingLog;
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, number>;
  const weights = fs.statSync(path.join(dir, 'model.safetensors')).size;
  const total = folderBytes(dir);
  const judgeDir = e.judge ? path.join(dir, e.judge) : null;
  const judgeLog = judgeDir ? (JSON.parse(fs.readFileSync(path.join(judgeDir, 'training_log.json'), 'utf8')) as TrainingLog) : null;
  const params = weights / 4;
  const lossAt = (frac: number) => log.history[Math.min(log.history.length - 1, Math.floor(frac * log.history.length))]?.loss ?? NaN;
  const fam = ['arithmetic', 'units', 'facts', 'grading'] as const;
  const card = `# ${DEFAULT_MODEL_NAME}

ClawLoop's built-in model: a ${(params / 1e6).toFixed(1)} M-parameter \`Qwen3ForCausalLM\` trained from scratch by
ClawLoop's own engine, on a laptop-class CPU, so that ClawLoop works out of the box and there is
something to personalise. It is small on purpose: it knows a handful of task families well, talks
in several styles, and ${judgeDir ? 'comes with a judge of its turns trained on from it' : 'can judge its own turns'} (the PRM and hint judge of ClawLoop's learning loop).
It is not a general assistant.

## What it is

| | |
|---|---|
| Architecture | Qwen3 (RMSNorm, RoPE θ = ${config.rope_theta}, grouped-query attention ${config.num_attention_heads}/${config.num_key_value_heads} heads, per-head q/k norm, SwiGLU, tied embeddings) |
| Size | ${config.num_hidden_layers} layers, hidden ${config.hidden_size}, MLP ${config.intermediate_size}, head dim ${config.head_dim}; ${(params / 1e6).toFixed(2)} M parameters, float32 |
| Context | ${config.max_position_embeddings} positions (trained on conversations up to 640 tokens) |
| Tokenizer | byte-level BPE, ${config.vocab_size} ids (learned on the generated corpus; digits split one by one, Qwen's pre-tokenizer), ChatML special tokens |
| Chat template | ClawLoop's ChatML template (\`resources/chat-templates/clawloop.jinja\`): system prompt, tools, \`<tool_call>\` calls and \`<tool_response>\` results, \`<think>\` reasoning |
| Files | ${(total / 1e6).toFixed(1)} MB in all (weights ${(weights / 1e6).toFixed(1)} MB) |
| Judge prompts | \`clawloop_judges.json\` (short prompts in the formats of the learning loop) |${
    e.judge ? `\n| Judge | \`${e.judge}/\`: the same architecture and tokenizer, trained on from this model (below) |` : ''
  }
| Training defaults | \`clawloop_training.json\` (settings ClawLoop uses for it on a fresh data folder) |

## What it was trained on

Generated conversations (\`scripts/default-model/\`, deterministic from seed ${SEEDS.train}), nothing
downloaded:

- **Tasks.** Small arithmetic word problems solved in steps (one to three of +, −, ×, ÷), unit
  conversions (time, length, mass, volume, money), facts about an invented world of 30 countries
  (capital, language, currency, national animal; \`resources/tasks/knowledge-base.json\`), and
  grading a pupil's answer to a word problem.
- **Styles.** Each answer comes in one of four styles: markdown-heavy (headings, bold, numbered or
  bulleted steps), plain prose with the steps, a terse one-liner, or a warm teacher's voice that
  names the exact steps. Without instructions the mix leans to markdown
  (${STYLES.map((s) => `${s} ${pct(e.style_mix_target[s])}`).join(', ')}), as chat models do, so a user has something to personalise.
- **Hints and feedback.** Answers that follow a style hint appended as \`[user's hint / instruction]\`
  (how ClawLoop's OPD teacher sees a hint), and sessions where the user complains and the
  assistant answers again in the style asked for.
- **Judging.** The PRM prompt (response + next message → brief reason and \`\\boxed{1|-1|0}\`) and the
  hint prompt (\`\\boxed{1}\` + \`[HINT_START]…[HINT_END]\`, or \`\\boxed{-1}\`), over user replies composed
  from many phrasings, tool results and tool errors.
- **Tools.** A little tool use (a weather tool) so that a tools block in the prompt does not confuse it.

Training: full fine-tuning from random initialisation, AdamW (β = 0.9, 0.95, weight decay
${log.recipe.weightDecay} except norms), peak learning rate ${log.recipe.lr} after ${log.recipe.warmupSteps} warm-up steps, cosine decay
to ${log.recipe.minLrRatio * log.recipe.lr}; about ${log.recipe.batchTokens} tokens per step (padding included); ${log.steps} steps,
${(log.tokens / 1e6).toFixed(1)} M tokens. Loss (assistant tokens weight 1, context 0.1): ${lossAt(0.02).toFixed(2)} early,
${lossAt(0.5).toFixed(3)} halfway, ${lossAt(1).toFixed(3)} at the end.${
    log.recipe.earlierPlan
      ? ` The run was planned for ${log.recipe.earlierPlan.steps} steps and shortened at step ${log.recipe.earlierPlan.before}, so the
learning rate follows that plan's cosine until then.`
      : ''
  }${
    (log.recipe.phrasesV2FromExample ?? 0) > 0
      ? ` From example ${log.recipe.phrasesV2FromExample.toLocaleString('en-US')} of the stream on, user replies also draw
from a second phrase set (praise of any length, complaints that give a reason), added when the judges were seen to read long
praise as a complaint.`
      : ''
  }${continuationText(log)}${gradingText(log)}${judgeText(log, judgeLog, e.judge ?? '')}

**Time: ${(log.train_minutes / 60).toFixed(1)} hours of training on a 2-core machine** (AMD EPYC, 2 vCPUs, ClawLoop's
engine with its native OpenBLAS kernels). Reproduce it with \`npm run train:default\` (checkpointed:
an interrupted run resumes), then \`npm run eval:default\` to measure it and rewrite this card.

## What it does (measured)

On held-out generated examples (question phrasings never used in training where a family has
them), ${e.n} per measurement; sampled with the model's defaults (temperature ${e.sampling.temperature}, top-p ${e.sampling.top_p})
unless noted.${judgeDir ? ` The judges' rows are its judge's (\`${e.judge}/\`), on this model's turns; the hints it gives are followed by this model.` : ''}

| Measure | Result | Target |
|---|---|---|
| Task accuracy, sampled | ${pct(e.accuracy.sampled.all)} ${check(e.accuracy.sampled.all, 0.8)} | ≥ 80 % |
| Task accuracy, greedy | ${pct(e.accuracy.greedy.all)} | |
| Follows a style hint | ${pct(e.hint_following.all)} ${check(e.hint_following.all, 0.9)} | ≥ 90 % |
| PRM agrees with the label, held-out phrasings | ${pct(e.prm.held_out)} ${check(e.prm.held_out, 0.85)} | ≥ 85 % |
| PRM agrees with the label, training-like phrasings | ${pct(e.prm.in_distribution)} | |
| Hint judge: correct and actionable hint | ${pct(e.hint_judge.correct_actionable)} ${check(e.hint_judge.correct_actionable, 0.8)} | ≥ 80 % |
| Hint judge: right decision (hint / no hint) | ${pct(e.hint_judge.decision)} | |
| Hint judge: hints where none was due | ${pct(e.hint_judge.false_hints)} | |

Per family (sampled / greedy): ${fam.map((f) => `${f} ${pct(e.accuracy.sampled[f])} / ${pct(e.accuracy.greedy[f])}`).join('; ')}.

Unprompted style mix (sampled): ${STYLES.map((s) => `${s} ${pct(e.style_mix[s])}`).join(', ')}.

Hint following by style: ${STYLES.map((s) => `${s} ${pct(e.hint_following[s])}`).join(', ')}.${
    e.hinted_accuracy
      ? `\n\nTask accuracy when asked for a style (arithmetic, units and grading; sampled): ${STYLES.map((s) => `${s} ${pct(e.hinted_accuracy![s])}`).join(', ')}.`
      : ''
  }

PRM agreement by label (held-out): ${Object.entries(e.prm.by_label)
    .map(([k, v]) => `${k === '1' ? '+1' : k} ${pct(v)}`)
    .join(', ')}.

A hint counts as correct and actionable when, appended to a new question, it makes the model answer
in the style the user asked for (for style complaints), or when it carries the user's correction
(for wrong answers). Measured in ${e.seconds.toFixed(0)} s by \`npm run eval:default\`.

## Examples (sampled)

${e.examples
  .slice(0, 12)
  .map((x) => `**${x.kind}** — ${x.prompt.replace(/\n/g, ' ')}\n\n\`\`\`\n${x.output}\n\`\`\``)
  .join('\n\n')}

## Limits

- It knows only what it was taught: the four task families, the invented world and short chat
  around them. Ask it anything else and it answers with something from that world.
- Arithmetic beyond the trained range (results over ~150, more than three steps) and facts about
  real countries are out of reach.
- Its judgements follow the wording of user replies; unusual phrasings can fool it (see the
  held-out agreement above).
- English only. No safety tuning: it is a demonstration model for learning from conversations.
`;
  fs.writeFileSync(path.join(dir, 'MODEL_CARD.md'), card);
}
