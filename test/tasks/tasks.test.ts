import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkResponse, loadPersona, shippedPersonas } from '../../main/personalize/persona.js';
import { loadKnowledgeBase, makeKnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { isCorrect, makeTask, TASK_FAMILIES, type Task } from '../../main/tasks/taskFamilies.js';
import { CorpusGenerator } from '../../scripts/default-model/corpus.js';
import { HELD_OUT_COMPLAINTS, HELD_OUT_SATISFIED, userReaction, type Reaction } from '../../scripts/default-model/feedback.js';
import { classifyStyle, renderAnswer, STYLES, type Style } from '../../scripts/default-model/styles.js';

const kb = loadKnowledgeBase();

describe('task families, answer styles and checks', () => {
  it('the shipped world is the one its seed makes, with unique names', () => {
    assert.deepEqual(makeKnowledgeBase(kb.seed, kb.countries.length), kb);
    const names = kb.countries.flatMap((c) => [c.name, c.capital, c.language, c.currency, c.animal]);
    assert.equal(new Set(names).size, names.length);
  });

  it('every style renders a correct answer that the checker accepts, and a wrong one it rejects', () => {
    const r = new Rng(5);
    for (const family of TASK_FAMILIES) {
      for (let i = 0; i < 60; i++) {
        const t = makeTask(r, family, kb);
        for (const style of STYLES) {
          for (const terseWorking of [false, true]) {
            const a = renderAnswer(r, t, style, { terseWorking });
            assert.ok(isCorrect(t, a), `${family}/${style} judged wrong:\n${t.question}\n${a}`);
            if (family === 'arithmetic' || family === 'units' || family === 'grading') {
              assert.equal(classifyStyle(a), style, `${family}/${style} classified as ${classifyStyle(a)}:\n${a}`);
            }
          }
        }
        if (t.family === 'arithmetic' || t.family === 'units') assert.ok(!isCorrect(t, `The answer is ${t.answer + 1}.`));
        if (t.family === 'facts') assert.ok(!isCorrect(t, `It is ${t.distractors[0]}.`));
        if (t.family === 'grading') {
          const verdict = t.correct ? `Not quite, it should be ${t.problem.answer}.` : `Correct, ${t.problem.answer}.`;
          assert.ok(!isCorrect(t, verdict), verdict);
        }
      }
    }
  });

  it('a terse answer with working writes every step on its one line, and a terse fact names what was asked', () => {
    const r = new Rng(21);
    for (const family of ['arithmetic', 'grading'] as const) {
      for (let i = 0; i < 200; i++) {
        const t = makeTask(r, family, kb);
        const a = renderAnswer(r, t, 'terse', { terseWorking: true });
        const steps = t.family === 'arithmetic' ? t.steps : t.family === 'grading' ? t.problem.steps : [];
        const shown = steps.every((s) => a.includes(`${s.expr} = ${s.result}`));
        // Only a line that would not fit gives the result alone.
        assert.ok(shown || a.length <= 35, `${family}: ${a}`);
        assert.ok(a.length <= 60 && !a.includes('\n'), a);
      }
    }
    for (let i = 0; i < 200; i++) {
      const t = makeTask(r, 'facts', kb);
      const a = renderAnswer(r, t, 'terse', { terseWorking: true });
      if (t.family === 'facts' && a.length > t.answer.length + 1) assert.ok(a.includes(t.country.name), a);
      assert.ok(a.length <= 60 && classifyStyle(a) === 'terse', a);
    }
  });

  it('each shipped persona is satisfied by exactly the style it asks for', () => {
    // The student only minds formatting and missing steps, so a warm answer with its steps passes too.
    // The test-set personas: the coach wants warmth, the traveller a bare fact in a sentence, and
    // plainunits any unformatted sentence, so a terse conversion that is a whole sentence ("3
    // centimeters is 30 millimeters.") satisfies it and a two-word one does not.
    const want: Record<string, Style[]> = {
      student: ['plain', 'warm'],
      teacher: ['warm'],
      terse: ['terse'],
      coach: ['warm'],
      plainunits: ['plain', 'warm'],
      traveller: ['plain', 'terse'],
    };
    const either: Record<string, Style[]> = { plainunits: ['terse'] };
    const r = new Rng(9);
    for (const name of shippedPersonas()) {
      const p = loadPersona(name);
      const families = p.task === 'mixed' ? (['arithmetic', 'units'] as const) : ([p.task] as const);
      for (const family of families) {
        for (let i = 0; i < 40; i++) {
          const t: Task = makeTask(r, family, kb);
          for (const style of STYLES) {
            assert.ok(want[name], `${name}: add the styles it accepts to this test`);
            if (either[name]?.includes(style)) continue;
            for (const terseWorking of [false, true]) {
              const a = renderAnswer(r, t, style, { terseWorking });
              assert.equal(checkResponse(p, a).ok, want[name].includes(style), `${name}/${family}/${style}: ${a}`);
            }
          }
        }
      }
    }
  });

  it("the personas' phrases and the held-out judge phrasings never appear in the training corpus", () => {
    const gen = new CorpusGenerator(123, kb);
    const seen = new Set<string>();
    const r = new Rng(3);
    const kinds: Reaction[] = ['want-plain', 'want-terse', 'want-warm', 'want-markdown', 'satisfied', 'unclear'];
    for (const phrases of [1, 2, 3] as const) {
      for (let i = 0; i < 20_000; i++) {
        // Phrase set 3 praises what the answer did, so its praise depends on the answer's style.
        const praised = STYLES[Math.floor(i / kinds.length) % STYLES.length];
        seen.add(userReaction(r, kinds[i % kinds.length], undefined, phrases, praised).toLowerCase());
      }
      gen.phrases = phrases;
      gen.judgeMix = phrases === 3;
      for (let i = 0; i < 3000; i++) for (const m of gen.next().messages) if (m.role === 'user') seen.add(m.content.toLowerCase());
    }
    const held = [
      ...Object.values(HELD_OUT_COMPLAINTS).flat(),
      ...HELD_OUT_SATISFIED,
      ...shippedPersonas().flatMap((n) => {
        const p = loadPersona(n);
        return [...p.satisfied, ...Object.values(p.violated).flat()];
      }),
    ];
    const norm = (s: string) =>
      s
        .toLowerCase()
        .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
        .replace(/\s+/g, ' ')
        .trim();
    const trained = new Set([...seen].map(norm));
    for (const phrase of held) assert.ok(!trained.has(norm(phrase)), `"${phrase}" appears in training data`);
  });

  it('the corpus is deterministic in its seed and learns only assistant turns', () => {
    const a = new CorpusGenerator(77, kb);
    const b = new CorpusGenerator(77, kb);
    for (let i = 0; i < 200; i++) {
      const x = a.next();
      assert.deepEqual(x, b.next());
      x.messages.forEach((m, j) => assert.ok(!x.learn[j] || m.role === 'assistant'));
      assert.ok(x.learn.some(Boolean));
    }
  });
});
