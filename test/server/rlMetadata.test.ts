import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readRlMetadata } from '../../main/server/rlMetadata.js';

describe('RL metadata', () => {
  it('headers win over body fields; missing turn type means side', () => {
    assert.deepEqual(readRlMetadata({ 'x-session-id': 'h', 'x-turn-type': 'MAIN ' }, { session_id: 'b', turn_type: 'side' }), {
      sessionId: 'h',
      turnType: 'main',
      sessionDone: false,
      source: 'header',
    });
    assert.deepEqual(readRlMetadata({}, { session_id: 'b', turn_type: 'main', session_done: 'yes' }), {
      sessionId: 'b',
      turnType: 'main',
      sessionDone: true,
      source: 'header',
    });
    assert.deepEqual(readRlMetadata({}, {}), { sessionId: null, turnType: 'side', sessionDone: false, source: 'default' });
    assert.equal(readRlMetadata({ 'x-turn-type': 'primary' }, {}).turnType, 'side', 'only the exact value main is trainable');
  });

  it("falls back to the session_id header, then upstream OpenClaw's x-session-affinity", () => {
    assert.equal(readRlMetadata({ session_id: 's1', 'x-session-affinity': 'a' }, {}).sessionId, 's1');
    assert.equal(readRlMetadata({ 'x-session-affinity': 'a' }, {}).sessionId, 'a');
    assert.equal(
      readRlMetadata({ session_id: 'conv2:3', 'x-session-affinity': 'conv2:3' }, {}).sessionId,
      'conv2',
      "OpenClaw's affinity value counts compactions after the colon; the session is what comes before",
    );
    assert.equal(readRlMetadata({ 'x-session-id': 'conv2:3' }, {}).sessionId, 'conv2:3', 'an RL session header is taken as it is');
    assert.equal(readRlMetadata({ 'x-session-id': 'unknown' }, {}).sessionId, null, '"unknown" is no session');
  });

  it('session done accepts 1/true/yes/on from header or body', () => {
    for (const v of ['1', 'true', 'Yes', 'on']) assert.equal(readRlMetadata({ 'x-session-done': v }, {}).sessionDone, true);
    for (const v of [true, 1]) assert.equal(readRlMetadata({}, { session_done: v }).sessionDone, true);
    for (const v of ['0', 'no', 'false', '']) assert.equal(readRlMetadata({ 'x-session-done': v }, {}).sessionDone, false);
  });
});
