import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser } from './sseParser.js';

test('SSE parser: events, ids, multi-line data and comments, however the text is split', () => {
  const wire =
    ': hello\n\nid: 1\nevent: train.step\ndata: {"a":\ndata: 1}\n\nid: 2\r\nevent: adapter.live\r\ndata: {}\r\n\r\n: keep-alive\n\n';
  for (const size of [1, 2, 3, 7, wire.length]) {
    const p = new SseParser();
    const got = [];
    for (let i = 0; i < wire.length; i += size) got.push(...p.push(wire.slice(i, i + size)));
    assert.deepEqual(
      got.map((m) => [m.id, m.event, m.data]),
      [
        ['1', 'train.step', '{"a":\n1}'],
        ['2', 'adapter.live', '{}'],
      ],
      `chunks of ${size}`,
    );
    assert.equal(p.comments, 2);
  }
});

test('SSE parser: a field without a colon, a leading space kept once, retry, and data-less events', () => {
  const p = new SseParser();
  const got = p.push('data\n\ndata:  two spaces\n\nretry: 1500\n\nid: 9\n\nevent: x\n\n');
  assert.deepEqual(
    got.map((m) => ({ data: m.data, id: m.id, retry: m.retry })),
    [
      { data: '', id: null, retry: null },
      { data: ' two spaces', id: null, retry: null },
      { data: '', id: null, retry: 1500 },
      { data: '', id: '9', retry: null },
    ],
  );
});
