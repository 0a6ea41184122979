import type { LearnStore } from '../../main/store/learnStore.js';
import type { TurnRecord } from '../../main/store/turnStore.js';

/** A main turn as the server would have recorded it; `fields` override the defaults. */
export function storedTurn(fields: Pick<TurnRecord, 'id' | 'sessionId'> & Partial<TurnRecord>): TurnRecord {
  return {
    type: 'main',
    createdAt: Date.now(),
    completedAt: Date.now(),
    model: 'm',
    adapterVersion: 0,
    requestMessages: [{ role: 'user', content: 'hi' }],
    tools: null,
    params: {},
    promptText: 'hi',
    promptIds: [104, 105, 32],
    rawText: 'x',
    responseText: 'x',
    reasoningText: '',
    toolCalls: null,
    responseIds: [120, 121],
    responseLogprobs: [-1, -2],
    finishReason: 'stop',
    promptTokens: 3,
    completionTokens: 2,
    queueMs: 0,
    prefillMs: 0,
    decodeMs: 0,
    totalMs: 0,
    ...fields,
  };
}

let n = 0;
/** A rated main turn written straight into the store, as the server would have recorded it. */
export function ratedTurn(store: LearnStore, logprob: number, rating: 'up' | 'down'): string {
  const id = `turn-${++n}`;
  const session = `session-${n}`;
  const ep = store.turns.openSession(session, Date.now());
  store.turns.insertTurn(storedTurn({ id, sessionId: session, responseLogprobs: [logprob, -2] }), ep);
  store.setFeedback(id, rating, null, Date.now());
  return id;
}
