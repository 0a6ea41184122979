/**
 * The judges read a compact view of a turn: an OpenClaw-sized agent turn (a 40,000-character
 * system prompt, a dozen tools, a long history) is judged by the bundled model's judge, whose
 * context is 1,024 tokens, without overflowing it; a judge too small for any view skips the turn
 * with the reason, without asking it at all.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Model } from '../../main/engine/model/model.js';
import { defaultModelDir } from '../../main/resources.js';
import { JudgeInputError, ModelJudgeBackend, runHintJudge, runPrmJudge, type JudgeBackend } from '../../main/rl/judge.js';
import { DEFAULT_JUDGE_PROMPTS, fillJudgePrompt, loadJudgePrompts } from '../../main/rl/judgePrompts.js';
import { compactJudgeCase, judgeView, lastUserMessage } from '../../main/rl/judgeView.js';
import type { StoredTurn } from '../../main/store/turnStore.js';

const QUESTION = "[Fri 2026-11-27 12:04 UTC] what's the weather in Oslo right now?";

/** An OpenClaw-shaped turn: long system prompt, 12 tools with JSON schemas, 8 earlier exchanges, a huge tool result next. */
function openClawTurn(): StoredTurn {
  const system =
    `You are a personal assistant running inside OpenClaw.\n${'## Workspace notes\nKeep answers short. Use tools when needed.\n'.repeat(700)}`.slice(
      0,
      40_000,
    );
  const tools = Array.from({ length: 12 }, (_, i) => ({
    type: 'function',
    function: {
      name: i === 3 ? 'get_weather' : `tool_${i}`,
      description: `Tool number ${i}. ${'It does a thing. '.repeat(20)}`,
      parameters: { type: 'object', properties: { city: { type: 'string' }, path: { type: 'string' } }, required: [] },
    },
  }));
  const history = Array.from({ length: 8 }, (_, i) => [
    { role: 'user', content: `earlier question ${i}: ${'context '.repeat(200)}` },
    { role: 'assistant', content: `earlier answer ${i}` },
  ]).flat();
  const args = JSON.stringify({ city: 'Oslo', note: 'x'.repeat(30_000) });
  return {
    id: 't1',
    sessionId: 's1',
    type: 'main',
    createdAt: 0,
    completedAt: 0,
    model: 'clawloop-mini',
    adapterVersion: 0,
    requestMessages: [{ role: 'system', content: system }, ...history, { role: 'user', content: [{ type: 'text', text: QUESTION }] }],
    tools,
    params: {},
    promptText: '',
    promptIds: [],
    rawText: '',
    responseText: 'Let me check.',
    reasoningText: '',
    toolCalls: [{ id: 'c1', name: 'get_weather', arguments: args }],
    responseIds: [],
    responseLogprobs: [],
    finishReason: 'tool_calls',
    promptTokens: 0,
    completionTokens: 0,
    queueMs: null,
    prefillMs: null,
    decodeMs: null,
    totalMs: null,
    episode: 0,
    nextState: { role: 'tool', text: JSON.stringify({ city: 'Oslo', temperature_c: 3, log: 'y'.repeat(20_000) }), at: 0 },
    closed: false,
  };
}

describe('the judges read a compact view of a long agent turn', () => {
  let judgeModel: Model;
  before(async () => (judgeModel = await Model.load(path.join(defaultModelDir(), 'judge'), { tokenizerDir: defaultModelDir() })));
  after(() => judgeModel?.dispose());

  it('the view holds the last user message, the answer with its tool calls and the next state, never the system prompt', () => {
    const view = judgeView(openClawTurn())!;
    assert.equal(view.userMessage, QUESTION);
    assert.equal(view.toolCalls[0].name, 'get_weather');
    const { user } = fillJudgePrompt(DEFAULT_JUDGE_PROMPTS.prm, compactJudgeCase(view, 4000));
    assert.match(user, /weather in Oslo/);
    assert.match(user, /get_weather/);
    assert.doesNotMatch(user, /Workspace notes/);
    assert.ok(user.length < 4 * 4000 + 2000, `the largest view is bounded (${user.length} characters)`);
    assert.equal(judgeView({ ...openClawTurn(), nextState: null }), null);
  });

  it('the last user message is found behind tool results, and is empty when there is none', () => {
    const msgs = [
      { role: 'user' as const, content: 'first' },
      { role: 'user' as const, content: 'second' },
      { role: 'assistant' as const, content: '' },
      { role: 'tool' as const, content: '{}', tool_call_id: 'a' },
    ];
    assert.equal(lastUserMessage(msgs), 'second');
    assert.equal(lastUserMessage([{ role: 'system', content: 'x' }]), '');
  });

  it('many tool calls: the first and last few are kept and the rest counted', () => {
    const calls = Array.from({ length: 20 }, (_, i) => ({ name: `t${i}`, arguments: '{}' }));
    const c = compactJudgeCase({ response: '', toolCalls: calls, nextStateRole: 'tool', nextStateText: '' }, 100);
    assert.deepEqual(
      c.toolCalls.map((t) => t.name),
      ['t0', 't1', 't2', '…', 't17', 't18', 't19'],
    );
    assert.match(c.toolCalls[3].arguments, /14 more tool calls/);
  });

  it('the bundled judge (1,024 tokens) judges an OpenClaw-sized turn, every prompt counted within its context', async () => {
    const real = new ModelJudgeBackend(judgeModel, 'bundled judge');
    const asked: number[] = [];
    const recording: JudgeBackend = {
      description: real.description,
      context: real.context,
      complete: async (system, user, o) => {
        asked.push(real.context.countTokens(system, user) + o.maxTokens);
        assert.match(user, /get_weather/);
        return real.complete(system, user, o);
      },
    };
    const prompts = loadJudgePrompts(path.join(defaultModelDir(), 'judge'));
    const view = judgeView(openClawTurn())!;
    const opts = { votes: 2, temperature: 0.6, maxTokens: 64, seed: 3 };
    const prm = await runPrmJudge(recording, prompts, view, opts);
    const hint = await runHintJudge(recording, DEFAULT_JUDGE_PROMPTS, view, opts);
    assert.equal(prm.votes.length, 2);
    assert.equal(hint.votes.length, 2);
    assert.equal(asked.length, 4);
    for (const n of asked) assert.ok(n <= real.context.tokens, `${n} tokens asked of a ${real.context.tokens}-token judge`);
  });

  it('a judge too small for even the smallest view: JudgeInputError with the figures, and the judge is never asked', async () => {
    const real = new ModelJudgeBackend(judgeModel, 'bundled judge');
    let calls = 0;
    const tiny: JudgeBackend = {
      description: 'a 96-token judge',
      context: { tokens: 96, countTokens: real.context.countTokens },
      complete: async () => {
        calls++;
        return '';
      },
    };
    await assert.rejects(
      runPrmJudge(tiny, DEFAULT_JUDGE_PROMPTS, judgeView(openClawTurn())!, { votes: 2, temperature: 0.6, maxTokens: 32, seed: 0 }),
      (err: Error) =>
        err instanceof JudgeInputError && /context of 96 tokens/.test(err.message) && /clipped to 60 characters/.test(err.message),
    );
    assert.equal(calls, 0);
  });
});
