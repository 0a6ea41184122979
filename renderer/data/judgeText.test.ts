import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TurnView } from '../api/contract.js';
import { verdictText, voteText } from './judgeText.js';

type Judgement = TurnView['judgements'][number];
const judgement = (j: Partial<Judgement>): Judgement => ({
  kind: 'prm',
  judge: 'judge',
  score: null,
  hint: null,
  votes: [],
  created_at: 0,
  ...j,
});

// The walk (issue 42, finding 16) read "score —" and "score +1" for the same hint judge: its
// judgement has no score, its vote's \boxed{1} means "a hint was found".
test('judge text: the hint judge says whether it found a hint, never a score', () => {
  const found = judgement({
    kind: 'hint',
    hint: 'Answer in one short line.',
    votes: [{ raw: '… \\boxed{1}', score: 1, hint: 'Answer in one short line.' }],
  });
  assert.equal(verdictText(found), 'hint found “Answer in one short line.” (by 1 of 1 vote)');
  assert.equal(voteText('hint', found.votes[0]), 'found a hint “Answer in one short line.”');
  const none = judgement({
    kind: 'hint',
    votes: [
      { raw: '\\boxed{-1}', score: -1 },
      { raw: '\\boxed{-1}', score: -1 },
    ],
  });
  assert.equal(verdictText(none), 'no hint (in 2 votes)');
  assert.equal(voteText('hint', none.votes[0]), 'no hint');
  const short = judgement({ kind: 'hint', votes: [{ raw: '\\boxed{1}', score: 1, hint: 'ok' }] });
  assert.match(verdictText(short), /^no usable hint \(1 of 1 vote found one/);
  for (const j of [found, none, short]) assert.doesNotMatch(verdictText(j) + j.votes.map((v) => voteText('hint', v)).join(), /score/);
});

test('judge text: the reward judge gives its score and its votes', () => {
  const prm = judgement({
    kind: 'prm',
    score: 1,
    votes: [
      { raw: '\\boxed{1}', score: 1 },
      { raw: '?', score: null },
    ],
  });
  assert.equal(verdictText(prm), 'score +1 (2 votes)');
  assert.equal(voteText('prm', prm.votes[0]), 'score +1');
  assert.equal(voteText('prm', prm.votes[1]), 'unreadable');
});
