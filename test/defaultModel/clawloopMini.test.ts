/**
 * The bundled model: what it is and what it must do (greedy decoding, fixed held-out examples,
 * so the checks are deterministic for the committed weights). The full, sampled measurement is in
 * its MODEL_CARD.md (npm run eval:default).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { ChatMessage } from '../../main/engine/text/chatTemplate.js';
import { generateText } from '../../main/engine/generation/generate.js';
import { Model } from '../../main/engine/model/model.js';
import { withHint } from '../../main/engine/text/openaiMessages.js';
import { fillJudgePrompt, loadJudgePrompts } from '../../main/rl/judgePrompts.js';
import { parseBoxedScore, parseHint } from '../../main/rl/judgeParsing.js';
import { modelTrainingDefaults } from '../../main/rl/trainingConfig.js';
import { defaultModelDir } from '../../main/resources.js';
import { loadKnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { competenceSample, loadCompetenceSet } from '../../main/tasks/competenceSet.js';
import { isCorrect, makeTask, TASK_FAMILIES } from '../../main/tasks/taskFamilies.js';
import { classifyStyle, STYLES } from '../../scripts/default-model/styles.js';
import { styleHint } from '../../scripts/default-model/feedback.js';
import { folderBytes } from '../../scripts/default-model/modelCard.js';
import { JUDGE_FOLDER, RECOMMENDED_TRAINING } from '../../scripts/default-model/modelSpec.js';

describe('clawloop-mini, the bundled model', () => {
  const dir = defaultModelDir();
  let model: Model;
  const ask = async (messages: ChatMessage[], maxNewTokens = 200, m: Model = model) =>
    (
      await generateText(m.lm, m.tokenizer, m.encodeChat({ messages }).ids, {
        temperature: 0,
        maxNewTokens,
        stopTokenIds: m.generation.eosTokenIds,
      })
    ).text;

  before(async () => (model = await Model.load(dir)));
  after(() => model?.dispose());

  it('is a Qwen3 model folder of at most 50 MB with its card, judge prompts, training defaults and its judge', () => {
    const files = fs.readdirSync(dir);
    // A model folder's files: weights, tokenizer, generation settings and judge prompts.
    const modelFiles = [
      'config.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
      'generation_config.json',
      'clawloop_judges.json',
    ];
    for (const f of [...modelFiles, 'MODEL_CARD.md', 'clawloop_training.json']) assert.ok(files.includes(f), `missing ${f}`);
    // Its judge, named by its training defaults: the same architecture, and the model's own
    // tokenizer, which it shares instead of carrying a second copy.
    const judgeDir = path.join(dir, JUDGE_FOLDER);
    assert.deepEqual(modelTrainingDefaults(dir).judge, { kind: 'model', dir: JUDGE_FOLDER });
    const tokenizerFiles = ['tokenizer.json', 'tokenizer_config.json'];
    for (const f of modelFiles.filter((f) => !tokenizerFiles.includes(f)))
      assert.ok(fs.existsSync(path.join(judgeDir, f)), `missing ${JUDGE_FOLDER}/${f}`);
    for (const f of tokenizerFiles) assert.ok(!fs.existsSync(path.join(judgeDir, f)), `${JUDGE_FOLDER}/${f} copies the model's`);
    for (const f of ['config.json', 'clawloop_judges.json'])
      assert.equal(fs.readFileSync(path.join(judgeDir, f), 'utf8'), fs.readFileSync(path.join(dir, f), 'utf8'), `${JUDGE_FOLDER}/${f}`);
    const bytes = folderBytes(dir);
    assert.ok(bytes <= 50 * 1024 * 1024, `${(bytes / 2 ** 20).toFixed(1)} MiB`);
    const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as { architectures: string[] };
    assert.deepEqual(config.architectures, ['Qwen3ForCausalLM']);
    assert.equal(model.config.architecture, 'qwen3');
    assert.ok(model.tokenizer.byteLevel);
    const card = fs.readFileSync(path.join(dir, 'MODEL_CARD.md'), 'utf8');
    assert.match(card, /Task accuracy, sampled \| \d+\.\d %/);
    assert.doesNotThrow(() => modelTrainingDefaults(dir));
    assert.deepEqual(
      JSON.parse(fs.readFileSync(path.join(dir, 'clawloop_training.json'), 'utf8')),
      { ...RECOMMENDED_TRAINING },
      "the bundled clawloop_training.json is the recipe's RECOMMENDED_TRAINING",
    );
    // The chat template handles tools, tool calls and reasoning.
    const text = model.renderChat({
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: '',
          reasoning_content: 'think',
          tool_calls: [{ function: { name: 'get_weather', arguments: '{"city": "X"}' } }],
        },
        { role: 'tool', content: '{"temp": 1}' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    assert.match(
      text,
      /<tools>[\s\S]*get_weather[\s\S]*<think>\nthink\n<\/think>[\s\S]*<tool_call>\n\{"name": "get_weather"[\s\S]*<tool_response>/,
    );
  });

  // A fixed sample of 100 prompts left 140 that no check read, and terse's losses landed there (3.3
  // points on the mean, nothing on the sample); on 96 prompts the 3-point margin was two answers
  // (docs/learning-loop.md §7, "A margin of whole answers" and "A judge's hint that does not explain").
  it('checks every prompt of its competence set, where its margins lose under half an answer to rounding', () => {
    const c = modelTrainingDefaults(dir);
    const set = loadCompetenceSet(dir)!;
    const n = c.competence_prompts;
    assert.equal(competenceSample(set, n).length, set.items.length, `a check reads ${n} of ${set.items.length} prompts`);
    // A drop of exactly the margin passes: in whole answers, the margin is its floor.
    const rounding = (margin: number, prompts: number) => {
      const answers = Math.round(margin * prompts * 1e6) / 1e6;
      return answers - Math.floor(answers);
    };
    assert.ok(rounding(c.competence_margin, n) < 0.5, `a margin of ${c.competence_margin} is ${c.competence_margin * n} of ${n} answers`);
    for (const family of ['grading', 'units']) {
      const size = set.items.filter((it) => it.family === family).length;
      assert.ok(
        rounding(c.competence_family_margin!, size) < 0.5,
        `${family}: a margin of ${c.competence_family_margin! * size} of ${size} answers`,
      );
    }
  });

  // Every family meets the 80 % target on these cases. Grading did not before the third training
  // phase (comments that work the problem out before the verdict): 4 in 10 was its floor then.
  const floor: Record<(typeof TASK_FAMILIES)[number], number> = { arithmetic: 8, units: 8, facts: 8, grading: 8 };
  it('answers held-out tasks: every family at least 8 in 10 (greedy)', async () => {
    const kb = loadKnowledgeBase();
    const r = new Rng(20261122);
    for (const family of TASK_FAMILIES) {
      let ok = 0;
      const wrong: string[] = [];
      for (let i = 0; i < 10; i++) {
        const t = makeTask(r, family, kb, { heldOutPhrasing: true });
        const a = await ask([{ role: 'user', content: t.question }]);
        if (isCorrect(t, a)) ok++;
        else wrong.push(`${t.question}\n→ ${a}`);
      }
      assert.ok(ok >= floor[family], `${family}: ${ok}/10\n${wrong.join('\n\n')}`);
    }
  });

  it('follows a style hint in the OPD teacher format', async () => {
    const kb = loadKnowledgeBase();
    const r = new Rng(7);
    let ok = 0;
    const misses: string[] = [];
    for (const style of STYLES) {
      for (const family of ['arithmetic', 'units', 'grading'] as const) {
        const t = makeTask(r, family, kb);
        const a = await ask(withHint([{ role: 'user', content: t.question }], styleHint(r, style)));
        if (classifyStyle(a) === style) ok++;
        else misses.push(`${style}: ${a}`);
      }
    }
    assert.ok(ok >= 11, `${ok}/12\n${misses.join('\n')}`);
  });

  // A terse persona can only be learned without losing competence if a one-line answer can still
  // be right: the second training phase writes the working on the line.
  it('asked for one-line answers, still gets arithmetic right at least 7 in 10 (greedy)', async () => {
    const kb = loadKnowledgeBase();
    const r = new Rng(31);
    let ok = 0;
    const wrong: string[] = [];
    for (let i = 0; i < 10; i++) {
      const t = makeTask(r, 'arithmetic', kb, { heldOutPhrasing: true });
      const a = await ask(withHint([{ role: 'user', content: t.question }], styleHint(r, 'terse')));
      if (isCorrect(t, a) && classifyStyle(a) === 'terse') ok++;
      else wrong.push(`${t.question}\n→ ${a}`);
    }
    assert.ok(ok >= 7, `${ok}/10\n${wrong.join('\n\n')}`);
  });

  it('its judge reads its turns: thanks is +1, a complaint −1 with a hint that asks for the change', async () => {
    const judgeModel = await Model.load(path.join(dir, JUDGE_FOLDER), { tokenizerDir: dir });
    try {
      const prompts = loadJudgePrompts(judgeModel.dir);
      const response =
        '### Solution\n\n1. Mia starts with **12 stickers**.\n2. She buys 7 more: 12 + 7 = **19**.\n\n**Answer:** Mia has **19 stickers** now.';
      const judge = async (which: 'prm' | 'hint', next: string) => {
        const p = fillJudgePrompt(prompts[which], { response, toolCalls: [], nextStateRole: 'user', nextStateText: next });
        return ask(
          [
            { role: 'system', content: p.system },
            { role: 'user', content: p.user },
          ],
          120,
          judgeModel,
        );
      };
      assert.equal(parseBoxedScore(await judge('prm', 'Wonderful, thank you so much!')), 1);
      assert.equal(parseBoxedScore(await judge('prm', 'Please redo it without the bold and the list, plain sentences only.')), -1);
      const hint = await judge('hint', 'Please redo it without the bold and the list, plain sentences only.');
      assert.equal(parseBoxedScore(hint), 1, hint);
      assert.match(parseHint(hint) ?? '', /plain|bold|list|heading|markdown|format/i);
      assert.equal(parseBoxedScore(await judge('hint', 'Wonderful, thank you so much!')), -1);
    } finally {
      judgeModel.dispose();
    }
  });
});
