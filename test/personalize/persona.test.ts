import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  blindPersonas,
  checkResponse,
  countSentences,
  loadPersona,
  parsePersona,
  personaList,
  PersonaError,
  shippedPersonas,
} from '../../main/personalize/persona.js';
import { personaTask } from '../../main/personalize/simulatedUser.js';
import { loadKnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';

const base = () => ({
  name: 'x',
  description: 'd',
  task: 'arithmetic',
  max_turns_per_session: 2,
  rules: [{ id: 'no-bold', type: 'absent', pattern: '\\*\\*' }],
  feedback: { satisfied: ['thanks'], violated: { 'no-bold': ['no bold please'] } },
});

describe('personas', () => {
  it('ships three personas to tune on and three for the test set only, each with held-out request phrasings', () => {
    const names = shippedPersonas();
    const split = (s: string) => names.filter((n) => loadPersona(n).split === s).sort();
    assert.deepEqual(split('tune'), ['student', 'teacher', 'terse']);
    assert.deepEqual(split('test'), ['coach', 'plainunits', 'traveller']);
    for (const n of names) {
      const p = loadPersona(n);
      assert.ok(p.rules.length > 0 && p.satisfied.length > 0);
      assert.deepEqual(p.unknownFields, []);
      assert.ok(
        p.prompts.heldOut.every((t) => !p.prompts.train.includes(t)),
        `${n}: held-out phrasings are not training phrasings`,
      );
    }
  });

  it('keeps the blind set apart: only blindPersonas() lists it, every file loads as written, all for the test set', () => {
    const blind = blindPersonas();
    assert.equal(blind.length, 14);
    assert.ok(blind.every((n) => n.startsWith('blind/')));
    assert.deepEqual(
      shippedPersonas().filter((n) => n.includes('blind')),
      [],
      'the shipped list (what tuning scripts default to) has no blind persona',
    );
    for (const n of blind) {
      const p = loadPersona(n);
      assert.equal(p.split, 'test', n);
      assert.deepEqual(p.unknownFields, [], n);
    }
    assert.deepEqual(personaList('terse,blind,terse'), ['terse', ...blind]);
    assert.deepEqual(personaList('shipped'), shippedPersonas());
  });

  it('phrases requests with the training templates in the conversation and the held-out ones when measuring', () => {
    const p = parsePersona({ ...base(), prompts: { train: ['T: {question}'], held_out: ['H: {question}'] } }, 'inline');
    const kb = loadKnowledgeBase();
    const trained = personaTask(new Rng(1), p, kb, false);
    const measured = personaTask(new Rng(1), p, kb, true);
    assert.match(trained.question, /^T: /);
    assert.match(measured.question, /^H: /);
    const again = personaTask(new Rng(1), p, kb, false, new Set([trained.question.slice(3)]));
    assert.notEqual(again.question, trained.question, 'an excluded question is drawn again');
    assert.deepEqual(parsePersona(base(), 'inline').prompts, { train: ['{question}'], heldOut: ['{question}'] });
    assert.throws(
      () => parsePersona({ ...base(), prompts: { train: ['no slot'], held_out: ['{question}'] } }, 'p.json'),
      /prompts\.train\[0\]: every template must contain \{question\}/,
    );
  });

  it('every rule type checks what it says', () => {
    const p = parsePersona(
      {
        ...base(),
        rules: [
          { id: 'a', type: 'absent', pattern: '^#', flags: 'm' },
          { id: 'p', type: 'present', pattern: 'steps?', flags: 'i' },
          { id: 's', type: 'max_sentences', value: 2 },
          { id: 'mx', type: 'max_chars', value: 40 },
          { id: 'mn', type: 'min_chars', value: 5 },
          { id: 'sw', type: 'starts_with', value: 'ok', flags: 'i' },
          { id: 'ew', type: 'ends_with', pattern: '[.!]' },
        ],
        feedback: { satisfied: ['y'], violated: { default: ['n'] } },
      },
      'inline',
    );
    assert.deepEqual(checkResponse(p, 'OK, the Steps are done.'), { ok: true, violated: null, failed: [] });
    assert.deepEqual(checkResponse(p, 'ok\n# Steps\nfine.').failed, ['a', 's']); // a heading line; three lines
    assert.deepEqual(checkResponse(p, 'ok. no. nothing here at all, really!').failed, ['p', 's']);
    assert.deepEqual(checkResponse(p, 'Sure, steps').failed, ['sw', 'ew']);
    assert.deepEqual(checkResponse(p, 'ok st').failed, ['p', 'ew']);
    assert.equal(checkResponse(p, 'ok steps, and this goes on for far too long here.').violated, 'mx');
    assert.equal(countSentences('One. Two! Three?'), 3);
    assert.equal(countSentences('It is 2.5 km. Done'), 2);
    assert.equal(countSentences('- a\n- b'), 2);
    assert.equal(countSentences('  '), 0);
  });

  it('reports mistakes with the field and what is expected', () => {
    const bad = (patch: (p: ReturnType<typeof base>) => unknown, re: RegExp) =>
      assert.throws(
        () => parsePersona(patch(base()), 'p.json'),
        (err: unknown) => err instanceof PersonaError && re.test(err.message),
      );
    bad((p) => ({ ...p, task: 'poetry' }), /p\.json: task: must be one of arithmetic, units, facts, grading, mixed/);
    bad((p) => ({ ...p, rules: [{ id: 'r', type: 'rhymes' }] }), /rules\[0\]\.type: must be one of absent, present/);
    bad(
      (p) => ({ ...p, rules: [{ id: 'r', type: 'absent', pattern: '(' }] }),
      /rules\[0\] \(rule 'r', absent\): pattern is not a valid regular expression/,
    );
    bad((p) => ({ ...p, rules: [{ id: 'r', type: 'present' }] }), /needs "pattern"/);
    bad((p) => ({ ...p, rules: [{ id: 'r', type: 'max_chars', value: 'ten' }] }), /needs "value": a whole number/);
    bad((p) => ({ ...p, rules: [{ id: 'r', type: 'ends_with' }] }), /needs "pattern" \(a regular expression\) or "value"/);
    bad((p) => ({ ...p, rules: [{ id: 'r', type: 'absent', pattern: 'x', flags: 'g' }] }), /flags may only use i, m, s and u/);
    bad((p) => ({ ...p, rules: [p.rules[0], p.rules[0]] }), /the id 'no-bold' is used twice/);
    bad((p) => ({ ...p, feedback: { satisfied: [], violated: p.feedback.violated } }), /feedback\.satisfied: needs at least one phrase/);
    bad(
      (p) => ({ ...p, feedback: { satisfied: ['y'], violated: { 'no-blod': ['x'] } } }),
      /feedback\.violated\.no-blod: no rule has this id/,
    );
    bad(
      (p) => ({ ...p, rules: [...p.rules, { id: 'short', type: 'max_chars', value: 9 }] }),
      /feedback\.violated has no phrases for short and no "default" list/,
    );
    bad((p) => ({ ...p, max_turns_per_session: 0 }), /max_turns_per_session/);
  });

  it('keeps and reports unknown fields, and loads files by path or by shipped name', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-persona-'));
    const file = path.join(dir, 'mine.json');
    fs.writeFileSync(file, JSON.stringify({ ...base(), comment: 'mine', rules: [{ ...base().rules[0], why: 'looks AI' }] }));
    const p = loadPersona(file);
    assert.deepEqual(p.unknownFields, ['comment', 'rules[0].why']);
    assert.equal(p.file, 'mine.json');
    fs.writeFileSync(file, '{ not json');
    assert.throws(() => loadPersona(file), /mine\.json: not valid JSON/);
    assert.throws(() => loadPersona('nobody'), /no persona file 'nobody' and no shipped persona of that name \(shipped: .*student/);
    assert.equal(loadPersona('student.json').name, 'student');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
