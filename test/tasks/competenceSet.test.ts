import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCheck, taskCheck, type CompetenceCheck } from '../../main/tasks/competenceCheck.js';
import { COMPETENCE_FILE, competenceAccuracy, competenceSample, parseCompetenceSet } from '../../main/tasks/competenceSet.js';
import { loadKnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { makeTask, TASK_FAMILIES, type Task } from '../../main/tasks/taskFamilies.js';
import { competenceLines } from '../../scripts/default-model/makeCompetenceSet.js';
import { renderAnswer, STYLES } from '../../scripts/default-model/styles.js';
import { defaultModelDir } from '../../main/resources.js';

const kb = loadKnowledgeBase();

/** The answer check as it was written before checks became data: an independent reference. */
function referenceIsCorrect(task: Task, response: string): boolean {
  const nums = [...response.matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const mentions = (text: string, p: string) => new RegExp(`(^|[^\\p{L}])${esc(p)}($|[^\\p{L}])`, 'iu').test(text);
  switch (task.family) {
    case 'arithmetic':
    case 'units':
      return nums.length > 0 && nums[nums.length - 1] === task.answer;
    case 'facts': {
      if (!mentions(response, task.answer)) return false;
      const rest = response.replace(new RegExp(esc(task.answer), 'gi'), ' ');
      return !task.distractors.some((d) => mentions(rest, d));
    }
    case 'grading': {
      const saysWrong = /\b(incorrect|not correct|not quite|wrong|should be|mistake|slip|isn'?t right|not right)\b/i.test(response);
      if (saysWrong === task.correct) return false;
      return nums.includes(task.problem.answer);
    }
  }
}

/** Right and wrong answers of every kind the checks must tell apart. */
function answersFor(r: Rng, t: Task): string[] {
  const out = STYLES.map((s) => renderAnswer(r, t, s));
  const other = makeTask(r, t.family, kb);
  out.push(...STYLES.map((s) => renderAnswer(r, other, s)), '', 'I do not know.', 'The answer is 7.');
  if (t.family === 'facts') out.push(`${t.answer} or ${t.distractors[0]}`, `It is ${t.distractors[1]}.`);
  if (t.family === 'grading') out.push(`Not quite, it should be ${t.problem.answer}.`, `Correct, ${t.problem.answer}.`);
  return out;
}

describe('competence checks', () => {
  it("a task's check marks every answer exactly as the reference checker does, also after a JSON round trip", () => {
    const r = new Rng(11);
    let right = 0;
    let total = 0;
    for (const family of TASK_FAMILIES) {
      for (let i = 0; i < 40; i++) {
        const t = makeTask(r, family, kb, { heldOutPhrasing: i % 2 === 0 });
        const check = JSON.parse(JSON.stringify(taskCheck(t)));
        for (const a of answersFor(r, t)) {
          const want = referenceIsCorrect(t, a);
          assert.equal(runCheck(check, a), want, `${family}: ${JSON.stringify(check)}\n${a}`);
          right += want ? 1 : 0;
          total++;
        }
      }
    }
    assert.ok(right > total / 4 && right < (3 * total) / 4, `both verdicts occur (${right} of ${total} right)`);
  });

  it('all / not / regex / has_number compose', () => {
    const c: CompetenceCheck = {
      type: 'all',
      checks: [
        { type: 'not', check: { type: 'regex', pattern: 'wrong', flags: 'i' } },
        { type: 'has_number', value: 3 },
      ],
    };
    assert.equal(runCheck(c, 'Right, 1 + 2 = 3.'), true);
    assert.equal(runCheck(c, 'Wrong, 1 + 2 = 3.'), false);
    assert.equal(runCheck(c, 'Right, 4.'), false);
  });
});

describe('competence sets', () => {
  it('a file is parsed line by line; errors name the line and the field', () => {
    const ok = parseCompetenceSet(
      [
        '// comment',
        '{"prompt": "2+2?", "check": {"type": "last_number", "value": 4}}',
        '',
        '{"id": "x", "family": "f", "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}], "check": {"type": "regex", "pattern": "hi"}}',
      ].join('\n'),
      'set.jsonl',
    );
    assert.deepEqual(
      ok.items.map((i) => [i.id, i.family, i.messages.length]),
      [
        ['line-2', null, 1],
        ['x', 'f', 2],
      ],
    );
    assert.match(ok.hash, /^[0-9a-f]{16}$/);
    const bad: Array<[string, RegExp]> = [
      ['{"prompt": "a"', /set\.jsonl:1: not valid JSON/],
      ['{"prompt": "a", "check": {"type": "contains", "value": 1}}', /set\.jsonl:1: check\.type/],
      ['{"check": {"type": "last_number", "value": 1}}', /exactly one of "prompt" and "messages"/],
      ['{"prompt": "a", "check": {"type": "regex", "pattern": "("}}', /set\.jsonl:1: check\.pattern is not a valid regular expression/],
      ['{"messages": [{"role": "assistant", "content": "x"}], "check": {"type": "has_number", "value": 1}}', /must be a user message/],
      ['\n\n', /holds no prompts/],
    ];
    for (const [text, msg] of bad) assert.throws(() => parseCompetenceSet(text, 'set.jsonl'), msg);
  });

  it("a sample is the same every time, covers the families, is the whole set's first prompts, and accuracy counts passing checks", () => {
    const lines = competenceLines(kb, 40);
    const set = parseCompetenceSet(lines.join('\n'), 'x');
    const a = competenceSample(set, 8);
    assert.deepEqual(competenceSample(set, 8), a);
    assert.deepEqual(new Set(a.slice(0, 4).map((i) => i.family)).size, 4);
    assert.equal(competenceSample(set, 1000).length, 40);
    // A confirmation on the whole set reuses a policy's answers on the sample (main/rl/competenceConfirm.ts).
    for (const n of [1, 7, 8, 23]) assert.deepEqual(competenceSample(set, 40).slice(0, n), competenceSample(set, n), `sample of ${n}`);
    const answers = a.map((it, i) => (i % 2 ? 'no idea' : JSON.stringify(it.check)));
    const r = competenceAccuracy(a, answers);
    assert.equal(r.correct.length, 8);
    assert.throws(() => competenceAccuracy(a, answers.slice(1)), /7 answers for 8 prompts/);
  });

  it("a sample gives each family its share of the set, in every prefix, so its accuracy estimates the whole set's", () => {
    const line = (family: string, i: number) =>
      JSON.stringify({ prompt: `${family} ${i}`, family, check: { type: 'last_number', value: i } });
    const sizes = { arithmetic: 14, facts: 10, units: 8, grading: 8 };
    const set = parseCompetenceSet(
      Object.entries(sizes)
        .flatMap(([f, k]) => Array.from({ length: k }, (_, i) => line(f, i)))
        .join('\n'),
      'x',
    );
    const count = (items: ReturnType<typeof competenceSample>) => {
      const c: Record<string, number> = {};
      for (const it of items) c[it.family!] = (c[it.family!] ?? 0) + 1;
      return c;
    };
    // 40 prompts, 35 % of them arithmetic: a sample of 20 holds 7 sums, not 5 (equal turns).
    assert.deepEqual(count(competenceSample(set, 20)), { arithmetic: 7, facts: 5, units: 4, grading: 4 });
    for (let n = 1; n <= 40; n++) {
      const c = count(competenceSample(set, n));
      for (const [f, k] of Object.entries(sizes)) assert.ok(Math.abs((c[f] ?? 0) - (n * k) / 40) < 1, `${f} in a sample of ${n}`);
    }
    assert.equal(new Set(competenceSample(set, 4).map((it) => it.family)).size, 4, 'four prompts: one of each family');
    // Ties (places 3 and 10: grading and units equally behind) go to the family first by name.
    assert.equal(
      competenceSample(set, 20)
        .map((it) => it.family![0])
        .join(''),
      'afguafaguafguafagufa',
    );
    // Prompts without a family are one family of their own.
    const loose = parseCompetenceSet(
      [line('arithmetic', 1), line('arithmetic', 2), '{"prompt": "x", "check": {"type": "last_number", "value": 1}}'].join('\n'),
      'y',
    );
    assert.deepEqual(
      competenceSample(loose, 3).map((it) => it.family ?? null),
      ['arithmetic', null, 'arithmetic'],
    );
  });

  it("the bundled model's set is what the generator writes: 240 held-out prompts, none twice", () => {
    const file = path.join(defaultModelDir(), COMPETENCE_FILE);
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(text, `${competenceLines(kb, 240).join('\n')}\n`, 'regenerate it: node dist/scripts/default-model/makeCompetenceSet.js');
    const set = parseCompetenceSet(text, file);
    assert.equal(set.items.length, 240);
    assert.equal(new Set(set.items.map((i) => i.messages[0].content)).size, 240);
  });
});
