import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type { BackendName } from '../../main/engine/backends/backend.js';
import { runChatGeneration, type ChatGenerationResult } from '../../main/engine/generation/chatGeneration.js';
import { DecodeBatcher } from '../../main/engine/generation/decodeBatcher.js';
import { PrefixCache } from '../../main/engine/generation/prefixCache.js';
import { LoraAdapter } from '../../main/engine/model/lora.js';
import { Model } from '../../main/engine/model/model.js';
import type { ChatMessage, ToolSpec } from '../../main/engine/text/chatTemplate.js';
import { logprobScale, logprobsModel } from '../helpers/modelTolerance.js';
import { assertClose, tolerance } from '../helpers/numeric.js';
import { modelDir, type FixtureModel } from '../helpers/paths.js';
import { longContextModel } from '../helpers/testServer.js';

/*
 * Prefix reuse must be invisible in what a model says: a multi-turn agent session (a long system
 * prompt, a tool, each turn resending the history) decoded greedily with the prefix cache gives
 * the tokens, and log-probs within a forward pass's rounding, that it gives computing every prompt
 * in full; later turns reuse what the earlier ones computed; a different adapter or adapter
 * version never reuses an entry.
 */

const SYSTEM =
  'You are a careful assistant working in a terminal. Read the files before you change them, keep answers short, ' +
  'and call a tool when the request needs one. Never guess a file name; list the folder first.';
const TOOLS: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'list_files',
      description: 'List the files of a folder',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
];
const USERS = ['hello there, what can you do?', 'list the files in src please', 'and what is in the README?', 'thank you, that is all.'];

/** The number of leading tokens two sequences share. */
function common(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** How much each test generates: turns per session, tokens per answer. */
interface SuiteSize {
  turns: number;
  maxTokens: number;
}

type Hooks = Parameters<typeof runChatGeneration>[2];

/** One greedy turn of a session; the answer's content joins the history as the assistant's message. */
function turn(model: Model, size: SuiteSize, history: ChatMessage[], hooks: Hooks): Promise<ChatGenerationResult> {
  return runChatGeneration(model, { messages: history, tools: TOOLS, maxTokens: size.maxTokens, temperature: 0 }, hooks);
}

/** A session of `size.turns` turns; returns each turn's result. */
async function session(model: Model, size: SuiteSize, tag: string, hooks: Hooks = {}): Promise<ChatGenerationResult[]> {
  const history: ChatMessage[] = [{ role: 'system', content: SYSTEM }];
  const out: ChatGenerationResult[] = [];
  for (const u of USERS.slice(0, size.turns)) {
    history.push({ role: 'user', content: `${tag}: ${u}` });
    const r = await turn(model, size, history, hooks);
    out.push(r);
    history.push({ role: 'assistant', content: r.content });
  }
  return out;
}

function sameAnswers(model: Model, got: ChatGenerationResult[], want: ChatGenerationResult[], what: string): void {
  const tol = tolerance(logprobsModel(model.config, model.config.maxPositions));
  got.forEach((g, i) => {
    assert.deepEqual(g.promptIds, want[i].promptIds, `${what}, turn ${i + 1}: prompt`);
    assert.deepEqual(g.responseIds, want[i].responseIds, `${what}, turn ${i + 1}: greedy tokens`);
    assertClose(g.logprobs, want[i].logprobs, tol, `${what}, turn ${i + 1}: log-probs`, {
      scale: logprobScale(model.config, want[i].logprobs),
    });
  });
}

/**
 * The prefix cache suite on one fixture model and backend (default: the process's); `skip` says
 * why it cannot run here; `size` trims the sessions for slow backends (default 4 turns of 10 tokens).
 */
export function prefixCacheSuite(name: FixtureModel, opts: { backend?: BackendName; skip?: string | false; size?: SuiteSize } = {}): void {
  const { backend, skip = false, size = { turns: USERS.length, maxTokens: 10 } } = opts;
  describe(`prefix KV cache across requests (${name}${backend ? `, ${backend}` : ''})`, { skip }, () => {
    let model: Model;
    let full: ChatGenerationResult[];
    before(async () => {
      model = await Model.load(longContextModel(name, 1024), { backend });
      full = await session(model, size, 'a');
    });
    after(() => model?.dispose());

    it('a session decoded with it says what it says without it; each turn reuses the last', async () => {
      const baseline = tf.memory().numTensors;
      const cache = new PrefixCache(64 << 20);
      const cached = await session(model, size, 'a', { prefixCache: cache });
      sameAnswers(model, cached, full, 'with the prefix cache');
      assert.equal(cached[0].cachedPromptTokens, 0, 'the first turn finds nothing');
      for (let i = 1; i < cached.length; i++) {
        // The cache holds the previous prompt and the answer tokens fed after it (all but the last).
        const prev = [...cached[i - 1].promptIds, ...cached[i - 1].responseIds.slice(0, -1)];
        const want = Math.min(common(prev, cached[i].promptIds), cached[i].promptIds.length - 1);
        assert.equal(cached[i].cachedPromptTokens, want, `turn ${i + 1} reuses its shared prefix with the previous turn`);
        assert.ok(
          want >= cached[i - 1].promptIds.length - 8,
          `turn ${i + 1}: ${want} tokens reused of a previous prompt of ${cached[i - 1].promptIds.length}`,
        );
      }
      // A second session with the same system prompt and tools shares their keys and values.
      const other = await session(model, size, 'b', { prefixCache: cache });
      const shared = common(full[0].promptIds, other[0].promptIds);
      assert.ok(shared > 40, `the sessions share ${shared} prompt tokens`);
      assert.equal(other[0].cachedPromptTokens, shared);
      cache.dispose();
      assert.equal(tf.memory().numTensors, baseline, 'the entries are freed');
    });

    it('sessions decoded together in a batch get what they get alone', async () => {
      const cache = new PrefixCache(64 << 20);
      const batcher = new DecodeBatcher(model.lm);
      const [a, b] = await Promise.all([
        session(model, size, 'a', { prefixCache: cache, batcher }),
        session(model, size, 'b', { prefixCache: cache, batcher }),
      ]);
      sameAnswers(model, a, full, 'session a, batched');
      sameAnswers(model, b, await session(model, size, 'b'), 'session b, batched');
      assert.ok(a.slice(1).every((r) => r.cachedPromptTokens > 0) && b.slice(1).every((r) => r.cachedPromptTokens > 0));
      assert.equal(batcher.active, 0);
      batcher.dispose();
      cache.dispose();
    });

    it('another adapter, or another version of one, never reuses an entry', async () => {
      const history: ChatMessage[] = [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: USERS[1] },
      ];
      const adapter = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
      try {
        const alone = await turn(model, size, history, { adapter });
        const base = await turn(model, size, history, {});
        assert.notDeepEqual(base.logprobs, alone.logprobs, 'the adapter changes the model, so a stale prefix would show');
        const cache = new PrefixCache(64 << 20);
        await turn(model, size, history, { prefixCache: cache });
        const first = await turn(model, size, history, { prefixCache: cache, adapter, adapterVersion: 1 });
        assert.equal(first.cachedPromptTokens, 0, "the base model's entry is not reused by an adapter");
        sameAnswers(model, [first], [alone], 'with an adapter after the base model');
        const again = await turn(model, size, history, { prefixCache: cache, adapter, adapterVersion: 1 });
        assert.equal(again.cachedPromptTokens, again.promptIds.length - 1, 'the same version reuses all but the last prompt token');
        sameAnswers(model, [again], [alone], 'the same adapter version, reused');
        const bumped = await turn(model, size, history, { prefixCache: cache, adapter, adapterVersion: 2 });
        assert.equal(bumped.cachedPromptTokens, 0, "a new version of the adapter does not reuse the old version's entry");
        const reloaded = LoraAdapter.load(path.join(modelDir(name), 'adapter'), model.config);
        const swapped = await turn(model, size, history, { prefixCache: cache, adapter: reloaded, adapterVersion: 1 });
        reloaded.dispose();
        assert.equal(swapped.cachedPromptTokens, 0, 'a hot-swapped adapter object does not reuse the one it replaced');
        cache.forget(adapter);
        const after = await turn(model, size, history, { prefixCache: cache, adapter, adapterVersion: 1 });
        assert.equal(after.cachedPromptTokens, 0, "forget drops an adapter's entries");
        cache.dispose();
      } finally {
        adapter.dispose();
      }
    });
  });
}
