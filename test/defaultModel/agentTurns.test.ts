/**
 * The agent examples the default model trains and is evaluated on (scripts/default-model/agentTurns.ts):
 * a tool request is answered with a call to the right listed tool that serving's parser reads
 * back, then a continuation after the tool's result; held-out tools and prompt texts never appear
 * in training examples; the stream resumes where it stopped.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ChatTemplate } from '../../main/engine/text/chatTemplate.js';
import { ChatOutputParser } from '../../main/engine/text/chatOutputParser.js';
import { TextTokenizer } from '../../main/engine/text/tokenizer.js';
import { defaultModelDir } from '../../main/resources.js';
import type { KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { AgentStream } from '../../scripts/default-model/agentStream.js';
import { HELD_OUT_TOOLS, TRAIN_TOOLS } from '../../scripts/default-model/agentTools.js';
import { AgentTurnGenerator } from '../../scripts/default-model/agentTurns.js';
import { renderExample } from '../../scripts/default-model/encodeExample.js';
import { ROOT } from '../helpers/paths.js';

const kb = JSON.parse(fs.readFileSync(path.join(ROOT, 'resources/tasks/knowledge-base.json'), 'utf8')) as KnowledgeBase;
const template = new ChatTemplate(fs.readFileSync(path.join(ROOT, 'resources/chat-templates/clawloop.jinja'), 'utf8'), {
  eos_token: '<|im_end|>',
  pad_token: '<|endoftext|>',
});
const heldOutNames = HELD_OUT_TOOLS.map((t) => t.spec.function.name);

describe('agent examples for the default model', () => {
  it('a tool request: the learned answer is a call to the expected, listed tool, read back by the serving parser; then a continuation', () => {
    const gen = new AgentTurnGenerator(5, kb, { maxNoteLines: 20 });
    let calls = 0;
    for (let i = 0; i < 60; i++) {
      const ex = gen.next();
      const first = ex.messages[ex.firstAnswer];
      assert.equal(first.role, 'assistant');
      assert.equal(ex.learn[ex.firstAnswer], true);
      assert.equal(ex.messages[0].role, 'system');
      if (!ex.expectedTool) {
        assert.ok(ex.task && !first.tool_calls, 'a question that needs no tool is answered directly');
        continue;
      }
      calls++;
      assert.ok(
        ex.tools!.some((t) => t.function.name === ex.expectedTool),
        'the needed tool is listed',
      );
      // The call as the model writes it (the template's markup), parsed as serving parses it.
      const written = template.render({ messages: ex.messages.slice(0, ex.firstAnswer + 1), tools: ex.tools, addGenerationPrompt: false });
      const body = written
        .slice(written.lastIndexOf('<|im_start|>assistant\n') + '<|im_start|>assistant\n'.length)
        .replace(/<\|im_end\|>\n?$/, '');
      const p = new ChatOutputParser();
      const parsed = [...p.push(body), ...p.finish()].flatMap((e) => (e.kind === 'toolCall' ? [e.call] : []));
      assert.equal(parsed.length, 1, body);
      assert.equal(parsed[0].name, ex.expectedTool);
      assert.deepEqual(JSON.parse(parsed[0].arguments), ex.expectedArgs);
      assert.equal(ex.messages[ex.firstAnswer + 1].role, 'tool');
      assert.equal(ex.messages[ex.firstAnswer + 2].role, 'assistant');
      assert.ok(ex.messages[ex.firstAnswer + 2].content.length > 0, 'a continuation after the result');
    }
    assert.ok(calls > 20 && calls < 50, `${calls} of 60 need a tool`);
  });

  it('training examples never show a held-out tool; held-out ones always need one and use held-out prompt texts', () => {
    const train = new AgentTurnGenerator(6, kb, { maxNoteLines: 10 });
    for (let i = 0; i < 40; i++) {
      const text = renderExample(template, train.next()).text;
      for (const name of heldOutNames) assert.ok(!text.includes(name), `${name} in a training example`);
      assert.ok(!text.includes('## What you can do'), 'a held-out tool heading in a training example');
    }
    const held = new AgentTurnGenerator(7, kb, { heldOut: true, toolShare: 1, maxNoteLines: 10 });
    for (let i = 0; i < 10; i++) {
      const ex = held.next();
      assert.ok(heldOutNames.includes(ex.expectedTool!));
      assert.ok(!TRAIN_TOOLS.some((t) => t.spec.function.name === ex.expectedTool));
    }
  });

  it('prompts reach OpenClaw lengths within the 8,192-token context, and a resumed stream continues the same examples', () => {
    const tokenizer = TextTokenizer.fromDir(defaultModelDir());
    const opts = { seed: 3, agentShare: 1, maxTokens: 8192, maxNoteLines: 400, agentContextWeight: 0.01 };
    const a = new AgentStream(kb, template, tokenizer, opts);
    const lengths = Array.from({ length: 12 }, () => a.next().ids.length);
    assert.ok(Math.max(...lengths) > 4000, `longest ${Math.max(...lengths)} tokens`);
    assert.ok(Math.max(...lengths) <= 8192);
    const b = new AgentStream(kb, template, tokenizer, opts);
    b.skipTo(a.index);
    const c = new AgentStream(kb, template, tokenizer, opts);
    for (let i = 0; i < 12; i++) c.next();
    assert.deepEqual(b.next().ids, c.next().ids);
  });
});
