import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JudgeInputError, runHintJudge, runPrmJudge, type JudgeBackend } from '../../main/rl/judge.js';
import { hintCandidates, majorityScore, parseBoxedScore, parseHint, selectLongestHint, topKOverlap } from '../../main/rl/judgeParsing.js';
import { DEFAULT_JUDGE_PROMPTS, fillJudgePrompt, loadJudgePrompts } from '../../main/rl/judgePrompts.js';
import { loadJudge } from '../../main/rl/judgeSetup.js';
import { Model } from '../../main/engine/model/model.js';
import { modelDir } from '../helpers/paths.js';

/** A judge that answers from a script and records what it was asked. */
class ScriptedJudge implements JudgeBackend {
  readonly description = 'scripted';
  readonly asked: Array<{ system: string; user: string; temperature: number; seed: number }> = [];
  constructor(private readonly answers: string[]) {}
  async complete(system: string, user: string, o: { temperature: number; seed: number }): Promise<string> {
    this.asked.push({ system, user, temperature: o.temperature, seed: o.seed });
    return this.answers.shift() ?? '';
  }
}

const CASE = {
  response: 'Here are three ideas.',
  toolCalls: [{ name: 'read', arguments: '{"path":"a"}' }],
  nextStateRole: 'user',
  nextStateText: 'No, I meant vegetarian ideas.',
};

describe('judge output parsing', () => {
  it('reads the last boxed score, with or without a sign and spaces', () => {
    assert.equal(parseBoxedScore('So... \\boxed{1}'), 1);
    assert.equal(parseBoxedScore('\\boxed{+1} then on reflection \\boxed{-1}'), -1);
    assert.equal(parseBoxedScore('\\boxed{ - 1 }'), -1);
    assert.equal(parseBoxedScore('\\boxed{0}'), 0);
    assert.equal(parseBoxedScore('\\boxed{2}'), null);
    assert.equal(parseBoxedScore('score: 1'), null);
  });

  it('majority vote: ties and no valid vote give 0', () => {
    assert.equal(majorityScore([1, 1, -1]), 1);
    assert.equal(majorityScore([-1, null, -1, 1]), -1);
    assert.equal(majorityScore([1, -1]), 0);
    assert.equal(majorityScore([1, 0]), 0);
    assert.equal(majorityScore([null, null]), 0);
    assert.equal(majorityScore([]), 0);
  });

  it('hints: text between the markers; the longest of the \\boxed{1} votes longer than 10 characters wins', () => {
    assert.equal(parseHint('\\boxed{1} [HINT_START] Use plain prose. [HINT_END]'), 'Use plain prose.');
    assert.equal(parseHint('[HINT_START]unterminated'), null);
    const votes = [
      { score: 1 as const, hint: 'Short one.' },
      { score: 1 as const, hint: 'Write the steps in plain sentences.' },
      { score: -1 as const, hint: 'An even longer hint from a vote that said no.' },
      { score: 1 as const, hint: 'Use plain prose, no lists.' },
    ];
    assert.deepEqual(hintCandidates(votes), ['Write the steps in plain sentences.', 'Use plain prose, no lists.']);
    assert.equal(selectLongestHint(votes), 'Write the steps in plain sentences.');
    assert.equal(selectLongestHint([{ score: 1, hint: '0123456789' }]), null, 'ten characters is not enough');
  });

  it('top-k overlap counts shared tokens per position', () => {
    assert.equal(
      topKOverlap(
        [
          [1, 2, 3, 4],
          [5, 6, 7, 8],
        ],
        [
          [4, 3, 9, 10],
          [8, 1, 2, 3],
        ],
      ),
      3,
    );
  });
});

describe('judge prompts', () => {
  it('the PRM prompt carries the turn, the next state and its role, and teaches the scoring rules', () => {
    const { user } = fillJudgePrompt(DEFAULT_JUDGE_PROMPTS.prm, CASE);
    assert.match(user, /Here are three ideas\.\n\[calls tool read with \{"path":"a"\}\]/);
    assert.match(user, /What happened next \(the user's reply\)\nNo, I meant vegetarian ideas\./);
    for (const rule of [
      /tool result.*because the assistant called it/,
      /redo or retry/,
      /change or a correction/,
      /repeats the same request/,
      /not a neutral new instruction/,
      /ambiguous or unrelated/,
      /\\boxed\{1\}.*\\boxed\{-1\}.*\\boxed\{0\}/,
    ]) {
      assert.match(user, rule);
    }
    assert.match(
      fillJudgePrompt(DEFAULT_JUDGE_PROMPTS.prm, { ...CASE, nextStateRole: 'tool' }).user,
      /the result of a tool the assistant called/,
    );
  });

  it('a model folder can override them with clawloop_judges.json; a broken file is reported', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-judges-'));
    fs.writeFileSync(path.join(dir, 'clawloop_judges.json'), JSON.stringify({ prm: { user: 'Rate {response} given {next_state}.' } }));
    const p = loadJudgePrompts(dir);
    assert.equal(p.prm.user, 'Rate {response} given {next_state}.');
    assert.equal(p.prm.system, DEFAULT_JUDGE_PROMPTS.prm.system);
    assert.equal(p.hint, DEFAULT_JUDGE_PROMPTS.hint);
    fs.writeFileSync(path.join(dir, 'clawloop_judges.json'), '{"prm": {"system": "x"}}');
    assert.throws(() => loadJudgePrompts(dir), /"prm" needs a "user" template/);
    fs.rmSync(dir, { recursive: true });
  });
});

describe('the judge a configuration names', () => {
  it("a relative model folder is read from the served model's folder (a model's own judge); an absolute one as given", async () => {
    const served = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-served-'));
    fs.cpSync(modelDir('qwen3-qknorm'), path.join(served, 'judge'), { recursive: true });
    fs.writeFileSync(
      path.join(served, 'judge', 'clawloop_judges.json'),
      JSON.stringify({ prm: { user: 'Own judge: {response} / {next_state}' } }),
    );
    const base = await Model.load(modelDir('qwen3-qknorm'));
    try {
      const own = await loadJudge({ kind: 'model', dir: 'judge' }, base, served);
      assert.equal(own.backend.description, `model ${path.join(served, 'judge')}`);
      assert.equal(own.prompts.prm.user, 'Own judge: {response} / {next_state}', "the judge folder's prompts");
      assert.notEqual(own.model, base);
      own.model!.dispose();
      const elsewhere = await loadJudge({ kind: 'model', dir: modelDir('qwen3-qknorm') }, base, served);
      assert.equal(elsewhere.backend.description, `model ${modelDir('qwen3-qknorm')}`);
      elsewhere.model!.dispose();
      await assert.rejects(
        loadJudge({ kind: 'model', dir: 'no-judge-here' }, base, served),
        new RegExp(path.join(served, 'no-judge-here')),
      );
    } finally {
      base.dispose();
      fs.rmSync(served, { recursive: true });
    }
  });

  it("a model's own judge without a tokenizer shares the served model's; an outside folder without one does not load", async () => {
    const served = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-served-'));
    fs.cpSync(modelDir('qwen3-qknorm'), served, { recursive: true });
    fs.cpSync(modelDir('qwen3-qknorm'), path.join(served, 'judge'), { recursive: true });
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) fs.rmSync(path.join(served, 'judge', f), { force: true });
    const base = await Model.load(served);
    try {
      const own = await loadJudge({ kind: 'model', dir: 'judge' }, base, served);
      const hi = { messages: [{ role: 'user' as const, content: 'hi' }] };
      assert.deepEqual(own.model!.tokenizer.encode('judge this turn'), base.tokenizer.encode('judge this turn'));
      assert.equal(own.model!.renderChat(hi), base.renderChat(hi));
      own.model!.dispose();
      await assert.rejects(loadJudge({ kind: 'model', dir: path.join(served, 'judge') }, base, served), /tokenizer\.json is missing/);
    } finally {
      base.dispose();
      fs.rmSync(served, { recursive: true });
    }
  });
});

describe('judge runners', () => {
  it('PRM: m votes at the configured temperature, seeds per vote, majority of parsable votes', async () => {
    const judge = new ScriptedJudge(['fine \\boxed{-1}', 'garbage', 'also \\boxed{-1}']);
    const r = await runPrmJudge(judge, DEFAULT_JUDGE_PROMPTS, CASE, { votes: 3, temperature: 0.6, maxTokens: 64, seed: 10 });
    assert.equal(r.score, -1);
    assert.deepEqual(
      r.votes.map((v) => v.score),
      [-1, null, -1],
    );
    assert.deepEqual(
      judge.asked.map((a) => [a.temperature, a.seed]),
      [
        [0.6, 10],
        [0.6, 11],
        [0.6, 12],
      ],
    );
  });

  it('hint judge: keeps each vote, selects the longest accepted hint', async () => {
    const judge = new ScriptedJudge([
      '\\boxed{1}\n[HINT_START]Offer vegetarian dishes when asked for dinner ideas.[HINT_END]',
      '\\boxed{-1}',
      '\\boxed{1} [HINT_START]Ask about diet.[HINT_END]',
    ]);
    const r = await runHintJudge(judge, DEFAULT_JUDGE_PROMPTS, CASE, { votes: 3, temperature: 0.6, maxTokens: 64, seed: 0 });
    assert.equal(r.hint, 'Offer vegetarian dishes when asked for dinner ideas.');
    assert.deepEqual(
      r.votes.map((v) => v.hint),
      ['Offer vegetarian dishes when asked for dinner ideas.', null, 'Ask about diet.'],
    );
  });

  it('clips long turns (head and tail kept) until the prompt fits; gives up with JudgeInputError when nothing fits', async () => {
    const small: JudgeBackend = {
      description: 'small',
      async complete(_system, user) {
        if (user.length > 2500)
          throw new Error(`This model's maximum context length is 64 tokens. However, your messages resulted in ${user.length} tokens.`);
        return user;
      },
    };
    const long = { ...CASE, response: 'A'.repeat(20_000) + 'THE END', nextStateText: 'B'.repeat(9000) };
    const r = await runPrmJudge(small, DEFAULT_JUDGE_PROMPTS, long, { votes: 2, temperature: 0.6, maxTokens: 8, seed: 0 });
    assert.equal(r.votes.length, 2);
    assert.match(r.votes[0].raw, /characters left out/);
    assert.match(r.votes[0].raw, /THE END/, 'the tail of the response is kept');
    const tiny: JudgeBackend = { description: 'tiny', complete: async () => Promise.reject(new Error('maximum context length exceeded')) };
    await assert.rejects(
      runPrmJudge(tiny, DEFAULT_JUDGE_PROMPTS, CASE, { votes: 1, temperature: 0.6, maxTokens: 8, seed: 0 }),
      JudgeInputError,
    );
  });
});
