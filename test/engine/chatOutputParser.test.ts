import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ChatOutputParser, parseToolCall, type OutputEvent, type OutputParserOptions } from '../../main/engine/text/chatOutputParser.js';

/** Feeds text in pieces of `size` characters and returns the merged events plus the parser. */
function feed(text: string, size: number, opts?: OutputParserOptions) {
  const p = new ChatOutputParser(opts);
  const events: OutputEvent[] = [];
  for (let i = 0; i < text.length; i += size) events.push(...p.push(text.slice(i, i + size)));
  events.push(...p.finish());
  const merged = { reasoning: '', content: '', calls: [] as Array<{ name: string; arguments: string }> };
  for (const e of events) {
    if (e.kind === 'reasoning') merged.reasoning += e.text;
    else if (e.kind === 'content') merged.content += e.text;
    else merged.calls.push(e.call);
    if (e.kind !== 'toolCall')
      assert.ok(!/<\/?(think|tool_call)>?$/.test(e.text) || e.text.includes('<tool_call>{'), `markup leaked: ${JSON.stringify(e.text)}`);
  }
  assert.equal(merged.reasoning, p.reasoning);
  assert.equal(merged.content, p.content);
  return { ...merged, parser: p };
}

const SIZES = [1, 2, 3, 7, 1000];

describe('chat output parser', () => {
  it('plain answers pass through', () => {
    for (const n of SIZES) assert.equal(feed('Hello there, a < b and c > d.', n).content, 'Hello there, a < b and c > d.');
  });

  it('splits <think> reasoning from the answer (whitespace around tags trimmed)', () => {
    for (const n of SIZES) {
      const r = feed('<think>\nLet me think.\nYes.\n</think>\n\nThe answer is 4.\n', n);
      assert.equal(r.reasoning, 'Let me think.\nYes.');
      assert.equal(r.content, 'The answer is 4.');
    }
  });

  it('starts inside reasoning when the prompt opened <think>', () => {
    const r = feed('quietly\n</think>\n\nDone', 2, { startInReasoning: true });
    assert.deepEqual([r.reasoning, r.content], ['quietly', 'Done']);
  });

  it('parses tool calls, one event per call, after the answer text', () => {
    const text =
      'Adding it now.\n<tool_call>\n{"name": "edit", "arguments": {"path": "a.md", "newText": "x"}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "read", "arguments": {"path": "a.md"}}\n</tool_call>';
    for (const n of SIZES) {
      const r = feed(text, n);
      assert.equal(r.content, 'Adding it now.');
      assert.deepEqual(r.calls, [
        { name: 'edit', arguments: '{"path":"a.md","newText":"x"}' },
        { name: 'read', arguments: '{"path":"a.md"}' },
      ]);
      assert.ok(r.parser.hasToolCalls);
    }
  });

  it('keeps an invalid or unterminated tool call as answer text', () => {
    assert.equal(feed('<tool_call>{"name": oops}</tool_call>', 3).content, '<tool_call>{"name": oops}</tool_call>');
    const r = feed('Trying <tool_call>{"name": "a", "arguments": {', 4);
    assert.equal(r.content, 'Trying <tool_call>{"name": "a", "arguments": {');
    assert.deepEqual(r.calls, []);
  });

  it('leaves <tool_call> alone when tools were not offered', () => {
    const r = feed('<tool_call>{"name": "a", "arguments": {}}</tool_call>', 5, { toolCalls: false });
    assert.equal(r.content, '<tool_call>{"name": "a", "arguments": {}}</tool_call>');
    assert.deepEqual(r.calls, []);
  });

  it('an unterminated <think> at the end is reasoning', () => {
    const r = feed('<think>still thinking', 3);
    assert.deepEqual([r.reasoning, r.content], ['still thinking', '']);
  });

  it('holds back a partial tag only as long as it can still become one', () => {
    const p = new ChatOutputParser();
    assert.deepEqual(p.push('answer <thi'), [{ kind: 'content', text: 'answer' }]);
    assert.deepEqual(p.push('s is fine'), [{ kind: 'content', text: ' <this is fine' }]);
  });

  it('parseToolCall accepts string arguments and "parameters", rejects non-objects', () => {
    assert.deepEqual(parseToolCall('{"name":"f","arguments":"{\\"a\\":1}"}'), { name: 'f', arguments: '{"a":1}' });
    assert.deepEqual(parseToolCall('{"name":"f","parameters":{"a":1}}'), { name: 'f', arguments: '{"a":1}' });
    assert.deepEqual(parseToolCall('{"name":"f"}'), { name: 'f', arguments: '{}' });
    assert.equal(parseToolCall('{"arguments":{}}'), null);
    assert.equal(parseToolCall('{"name":"f","arguments":[1]}'), null);
    assert.equal(parseToolCall('not json'), null);
  });
});
