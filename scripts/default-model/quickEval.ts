/**
 * A small, fast check of the default model while it trains (greedy decoding on a few dozen
 * held-out cases): task accuracy, the unprompted style mix, hint following and both judges.
 * The full measurement for the model card is evalDefault.ts.
 */
import type { CausalLM } from '../../main/engine/model/causalLM.js';
import type { ChatMessage, ChatTemplate } from '../../main/engine/text/chatTemplate.js';
import { generateText } from '../../main/engine/generation/generate.js';
import { withHint } from '../../main/engine/text/openaiMessages.js';
import type { TextTokenizer } from '../../main/engine/text/tokenizer.js';
import { fillJudgePrompt } from '../../main/rl/judgePrompts.js';
import { parseBoxedScore, parseHint } from '../../main/rl/judgeParsing.js';
import type { KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { isCorrect, makeTask, TASK_FAMILIES, type TaskFamily } from '../../main/tasks/taskFamilies.js';
import { CorpusGenerator } from './corpus.js';
import { prmScore } from './feedback.js';
import { DEFAULT_MODEL_JUDGE_PROMPTS } from './judgePrompts.js';
import { classifyStyle, STYLES } from './styles.js';
import { styleHint } from './feedback.js';

export async function greedy(
  lm: CausalLM,
  tokenizer: TextTokenizer,
  template: ChatTemplate,
  eosId: number,
  messages: ChatMessage[],
  maxNewTokens = 200,
): Promise<string> {
  const ids = tokenizer.encode(template.render({ messages, addGenerationPrompt: true }));
  const r = await generateText(lm, tokenizer, ids, { maxNewTokens, temperature: 0, stopTokenIds: [eosId] });
  return r.text;
}

export async function quickEval(
  lm: CausalLM,
  tokenizer: TextTokenizer,
  template: ChatTemplate,
  kb: KnowledgeBase,
  eosId: number,
  opts: { show?: (text: string) => void } = {},
): Promise<Record<string, number>> {
  const r = new Rng(4242);
  const ask = (m: ChatMessage[], n = 200) => greedy(lm, tokenizer, template, eosId, m, n);
  let correct = 0;
  let markdown = 0;
  let total = 0;
  const shown: string[] = [];
  for (const family of TASK_FAMILIES) {
    for (let i = 0; i < 4; i++) {
      const t = makeTask(r, family, kb, { heldOutPhrasing: true });
      const a = await ask([{ role: 'user', content: t.question }]);
      total++;
      if (isCorrect(t, a)) correct++;
      if (i === 0) shown.push(`    ${t.question}\n    → ${a.replace(/\n/g, '\n      ')}`);
      if (classifyStyle(a) === 'markdown') markdown++;
    }
  }
  let followed = 0;
  const hintFamilies: TaskFamily[] = ['arithmetic', 'units', 'grading'];
  for (let i = 0; i < 8; i++) {
    const style = STYLES[i % 4];
    const t = makeTask(r, hintFamilies[i % 3], kb);
    const a = await ask(withHint([{ role: 'user', content: t.question }], styleHint(r, style)));
    if (classifyStyle(a) === style) followed++;
  }
  const gen = new CorpusGenerator(777, kb);
  let prmAgree = 0;
  let hintOk = 0;
  for (let i = 0; i < 10; i++) {
    const c = gen.judgeCase({ heldOut: true });
    const jc = { response: c.response, toolCalls: c.toolCall ? [c.toolCall] : [], nextStateRole: c.nextRole, nextStateText: c.next };
    const p = fillJudgePrompt(DEFAULT_MODEL_JUDGE_PROMPTS.prm, jc);
    const out = await ask(
      [
        { role: 'system', content: p.system },
        { role: 'user', content: p.user },
      ],
      60,
    );
    const want = c.nextRole === 'tool' ? (c.kind === 'satisfied' ? 1 : -1) : prmScore(c.kind);
    if (parseBoxedScore(out) === want) prmAgree++;
    const h = fillJudgePrompt(DEFAULT_MODEL_JUDGE_PROMPTS.hint, jc);
    const hout = await ask(
      [
        { role: 'system', content: h.system },
        { role: 'user', content: h.user },
      ],
      80,
    );
    const gave = parseBoxedScore(hout) === 1 && parseHint(hout) !== null;
    if (gave === (c.hint !== null)) hintOk++;
  }
  opts.show?.(shown.join('\n'));
  return {
    accuracy: correct / total,
    markdown_share: markdown / total,
    hint_following: followed / 8,
    prm_agreement: prmAgree / 10,
    hint_decision: hintOk / 10,
  };
}
