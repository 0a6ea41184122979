import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WireMessage } from '../../main/protocol/openai.js';
import { openClawCallKind, openClawNextState, personText } from '../../main/server/openclawCalls.js';
import { readRlMetadata } from '../../main/server/rlMetadata.js';

// dist/test/server -> test/fixtures/openclaw
const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/openclaw/upstream.json');
interface Recorded {
  name: string;
  headers: Record<string, string>;
  body: { messages: WireMessage[] };
}
const recorded = (JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { requests: Recorded[] }).requests;
const [firstTurn, secondTurn, leanTool, leanContinuation] = recorded;

/** The agent's system prompt as upstream OpenClaw starts it (the first recorded request's). */
const AGENT_SYSTEM = firstTurn.body.messages[0];
const user = (text: string): WireMessage => ({ role: 'user', content: text });
const withoutRuntime = (msgs: WireMessage[]) =>
  msgs.map((m) =>
    m.role === 'user' && typeof m.content === 'string' ? { ...m, content: m.content.replace(/\n\nRuntime: [^\n]*$/, '') } : m,
  );

describe('upstream OpenClaw calls (2026.9.6, no RL headers)', () => {
  it('agent turns and tool continuations are main turns of the session the affinity header names', () => {
    for (const r of recorded) {
      const meta = readRlMetadata(r.headers, r.body);
      assert.equal(meta.turnType, 'main', r.name);
      assert.equal(meta.sessionId, r === firstTurn || r === secondTurn ? 's1' : 'L1', `${r.name}: the ':0' compaction count is dropped`);
    }
    assert.equal(readRlMetadata(firstTurn.headers, firstTurn.body).source, 'openclaw-agent-turn');
    assert.equal(readRlMetadata(leanTool.headers, leanTool.body).source, 'openclaw-agent-turn');
    assert.equal(readRlMetadata(leanContinuation.headers, leanContinuation.body).source, 'openclaw-tool-continuation');
  });

  it('without session headers, the runtime line names the session, else the first message does', () => {
    for (const r of recorded) assert.equal(readRlMetadata({}, r.body).sessionId, r === firstTurn || r === secondTurn ? 's1' : 'L1', r.name);
    const a = readRlMetadata({}, { messages: withoutRuntime(firstTurn.body.messages) }).sessionId;
    const b = readRlMetadata({}, { messages: withoutRuntime(secondTurn.body.messages) }).sessionId;
    const other = readRlMetadata({}, { messages: withoutRuntime(leanTool.body.messages) }).sessionId;
    assert.match(a ?? '', /^openclaw-[0-9a-f]{16}$/);
    assert.equal(a, b, 'two turns of one conversation share a session');
    assert.notEqual(a, other, 'another conversation is another session');
  });

  it("the next state is the person's reply without OpenClaw's envelope and internal context, or the tool result", () => {
    assert.deepEqual(openClawNextState(secondTurn.body.messages), { role: 'user', text: "What's the weather in Oslo?" });
    const state = openClawNextState(leanContinuation.body.messages);
    assert.equal(state?.role, 'tool');
    assert.match(state?.text ?? '', /^Validation failed for tool "gateway"/);
    assert.equal(personText('[Fri 2026-11-27 14:50 UTC] Hello there\n\nRuntime: agent=main | sessionId=s1 | shell=bash'), 'Hello there');
  });

  it('compaction, memory flushes, heartbeats and slug calls are side turns', () => {
    const compaction: WireMessage[] = [
      {
        role: 'system',
        content: 'You are a context summarization assistant. Your task is to read a conversation between a user and an AI assistant…',
      },
      user('<conversation>…</conversation>\n\nThe messages above are a conversation to summarize.'),
    ];
    const flush = [AGENT_SYSTEM, user('Pre-compaction memory flush. Store durable memories only in memory/2026-11-27.md …')];
    const heartbeat = [
      AGENT_SYSTEM,
      user('Follow the heartbeat monitor scratch context when provided. Recurring tasks are automations; …'),
    ];
    const slug = [
      AGENT_SYSTEM,
      user('Based on this conversation, generate a short 1-2 word filename slug (lowercase, hyphen-separated, no file extension).'),
    ];
    const helper: WireMessage[] = [
      { role: 'system', content: "You are OpenClaw's exec safety reviewer. You review exactly one pending shell command…" },
      user('ls'),
    ];
    const cases: Array<[WireMessage[], string]> = [
      [compaction, 'compaction'],
      [flush, 'memory-flush'],
      [heartbeat, 'heartbeat'],
      [slug, 'slug'],
      [helper, 'helper'],
    ];
    const affinity = { session_id: 's1:1', 'x-session-affinity': 's1:1' };
    for (const [messages, kind] of cases) {
      assert.equal(openClawCallKind(messages), kind);
      const meta = readRlMetadata(affinity, { messages });
      assert.equal(meta.turnType, 'side', kind);
      assert.equal(meta.source, `openclaw-${kind}`);
      assert.equal(meta.sessionId, kind === 'slug' ? null : 's1', `${kind}: session`);
    }
  });

  it('the RL headers win, and a request that is not from OpenClaw stays side', () => {
    assert.equal(readRlMetadata({ 'x-turn-type': 'side' }, firstTurn.body).turnType, 'side');
    const compaction = [{ role: 'system' as const, content: 'You are a context summarization assistant.' }, user('summarize')];
    assert.equal(readRlMetadata({ 'x-turn-type': 'main', 'x-session-id': 'c' }, { messages: compaction }).turnType, 'main');
    const plain = readRlMetadata({}, { messages: [{ role: 'system', content: 'You are a helpful assistant.' }, user('hi')] });
    assert.deepEqual(plain, { sessionId: null, turnType: 'side', sessionDone: false, source: 'default' });
  });
});
