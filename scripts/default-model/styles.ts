/**
 * The four answer styles the default model learns, rendered for every task family:
 *  - markdown: the "AI-looking" answer (headings, bold, numbered or bulleted lists); the most common
 *    when nothing says otherwise, so there is something to personalise away from;
 *  - plain: casual prose that still shows every step;
 *  - terse: one short line with the result (with its working, from the continuation on: AnswerOptions);
 *  - warm: a kind, specific teacher's voice that walks through the actual steps.
 * Every rendering keeps the facts right, and in arithmetic and conversions the answer is the last
 * number, which is how the benchmarks check correctness in any style.
 */
import type { ArithmeticTask, FactsTask, GradingTask, Step, Task, UnitsTask } from '../../main/tasks/taskFamilies.js';
import type { Rng } from '../../main/util/random.js';

export type Style = 'markdown' | 'plain' | 'terse' | 'warm';
export const STYLES: readonly Style[] = ['markdown', 'plain', 'terse', 'warm'];

/** The unprompted mix: leaning to markdown, as chat models do. */
export const DEFAULT_STYLE_MIX: Readonly<Record<Style, number>> = { markdown: 0.64, plain: 0.12, terse: 0.12, warm: 0.12 };

function cap(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

const eq = (s: Step) => `${s.expr} = ${s.result}`;

/** How long a terse answer may be (one short line). */
export const TERSE_CHARS = 60;

/**
 * How answers are written. `terseWorking`: terse answers keep their working on their one line
 * (`4 × 8 = 32, 32 - 15 = 17: 17 marbles.`) instead of giving the result alone, which a 5 M-parameter
 * model cannot compute without writing the steps down; a terse fact is a short sentence that names
 * what was asked (`The capital of Bithistan is Thorport.`), which it recalls far better than a
 * bare name.
 */
export interface AnswerOptions {
  terseWorking?: boolean;
  /**
   * Grading comments work the problem out and set the pupil's answer beside the result before
   * they give the verdict (`### Working` … `Ava answered 37; the working gives 27.` … `❌ Incorrect`).
   * Before it, every style opened with the verdict, which a 5 M model must then guess: greedy, it
   * graded 56 % right asked for markdown and 23 % asked for warmth (`npm run bench:style-ceiling`).
   */
  gradingWorkFirst?: boolean;
}

const WARM_OPENERS = [
  'Great question!',
  'What a nice problem!',
  'Good thinking to ask!',
  'Nice one, let me walk you through it.',
  'Happy to help, this is a great one to practice.',
  'Lovely question!',
];
const WARM_CLOSERS = [
  "You're doing great, keep practicing problems like this!",
  'Nice work following along step by step!',
  'Well done for working through it!',
  "Keep it up, you've got this!",
  'Great job sticking with it!',
  'Good work, you can do the next one on your own!',
];

// ---------------------------------------------------------------------------------------- arithmetic

function storySteps(t: ArithmeticTask): Array<{ step: Step; clause: string }> {
  return t.steps.map((step, i) => {
    if (i === 0 && step.expr.includes('×')) return { step, clause: `${t.name} ${step.says}` };
    return { step, clause: `${i === 0 ? cap(t.pronoun) : t.pronoun} ${step.says}` };
  });
}

function arithmeticMarkdown(r: Rng, t: ArithmeticTask): string {
  const heading = r.pick(['Solution', 'Step-by-step solution', "Let's solve it", 'Working it out', 'Breaking it down']);
  const first = t.steps[0].expr.includes('×') ? null : `${t.name} starts with **${t.opening.split(' has ')[1]}**`;
  const layout = r.int(0, 2);
  if (layout === 0) {
    const items: string[] = [];
    if (first) items.push(`${first}.`);
    for (const { step, clause } of storySteps(t)) items.push(`${cap(clause)}: ${step.expr} = **${step.result}**.`);
    const answer = t.answerSentence.replace(t.answerShort, `**${t.answerShort}**`);
    return `### ${heading}\n\n${items.map((s, i) => `${i + 1}. ${s}`).join('\n')}\n\n**Answer:** ${answer}.`;
  }
  if (layout === 1) {
    const lines = storySteps(t).map(({ step, clause }, i) => `**Step ${i + 1}:** ${cap(clause)}: ${eq(step)}`);
    return `## ${heading}\n\n${lines.join('\n')}\n\n**Final answer: ${t.answerShort}**`;
  }
  const lines = storySteps(t).map(({ step, clause }) => `- **${cap(clause.replace(/^(he|she|[A-Z][a-z]+) /i, ''))}:** ${eq(step)}`);
  if (first) lines.unshift(`- **Start:** ${t.opening.split(' has ')[1]}`);
  return `**${t.name}'s ${t.object}**\n\n${lines.join('\n')}\n\n✅ **Answer: ${t.answerShort}**`;
}

function arithmeticProse(r: Rng, t: ArithmeticTask, warm: boolean): string {
  const parts: string[] = [];
  const steps = storySteps(t);
  const startsWithProduct = t.steps[0].expr.includes('×');
  if (!startsWithProduct) parts.push(r.pick([`${t.name} starts with ${t.opening.split(' has ')[1]}.`, `${t.opening}.`]));
  const joiners = warm ? ['so we work out', 'which means', 'so we get'] : ['so', 'which makes', 'and that gives', 'so'];
  steps.forEach(({ step, clause }, i) => {
    const lead = i === 0 ? '' : r.pick(['Then ', 'After that ', 'Next ', '']);
    const op = step.expr.includes('+') ? 'add' : step.expr.includes('-') ? 'take away' : step.expr.includes('×') ? 'multiply' : 'divide';
    const c = lead ? clause : cap(clause);
    if (warm) parts.push(`${lead}${c}, so we ${op}: ${eq(step)}.`.replace(/^./, (x) => x.toUpperCase()));
    else parts.push(`${lead}${c}, ${r.pick(joiners)} ${eq(step)}.`.replace(/^./, (x) => x.toUpperCase()));
  });
  parts.push(r.pick([`So ${t.answerSentence.replace(/^Each/, 'each')}.`, `That means ${t.answerSentence.replace(/^Each/, 'each')}.`]));
  if (!warm) return r.chance(0.3) ? `Okay, so ${parts.join(' ').replace(/^./, (x) => x.toLowerCase())}` : parts.join(' ');
  return `${r.pick(WARM_OPENERS)} ${parts.join(' ')} ${r.pick(WARM_CLOSERS)}`;
}

function arithmeticTerse(r: Rng, t: ArithmeticTask, working: boolean): string {
  if (working) return tersest([`${t.steps.map(eq).join(', ')}: ${t.answerShort}.`, `${t.steps.map(eq).join(', ')}.`]);
  const chainable = !t.steps.some((s) => s.expr.includes('÷')) && t.steps.length <= 3;
  const options = [`${t.answerShort}.`, `${t.answer}.`, `${t.answerSentence}.`];
  if (chainable) {
    const chain = t.steps.map((s, i) => (i === 0 ? s.expr : s.expr.replace(/^\d+ /, ''))).join(' ');
    options.push(`${chain} = ${t.answer}.`);
  }
  return r.pick(options);
}

/** The most complete of `options` (most complete first) that is still a terse line, else the last. */
function tersest(options: string[]): string {
  return options.find((o) => o.length <= TERSE_CHARS) ?? options[options.length - 1];
}

// ---------------------------------------------------------------------------------------- units

const SINGULAR: Record<string, string> = {
  hours: 'hour',
  minutes: 'minute',
  seconds: 'second',
  days: 'day',
  weeks: 'week',
  years: 'year',
  months: 'month',
  feet: 'foot',
  inches: 'inch',
  meters: 'meter',
  centimeters: 'centimeter',
  millimeters: 'millimeter',
  kilometers: 'kilometer',
  kilograms: 'kilogram',
  grams: 'gram',
  liters: 'liter',
  milliliters: 'milliliter',
  dollars: 'dollar',
  cents: 'cent',
};

function unitsFacts(t: UnitsTask): { big: string; small: string; factor: number; multiply: boolean } {
  const multiply = t.step.expr.includes('×');
  const factor = Number(t.step.expr.split(/[×÷]/)[1]);
  return multiply ? { big: t.from, small: t.to, factor, multiply } : { big: t.to, small: t.from, factor, multiply };
}

function unitsAnswer(r: Rng, t: UnitsTask, style: Style, working: boolean): string {
  const f = unitsFacts(t);
  const rule = `1 ${SINGULAR[f.big] ?? f.big} = ${f.factor} ${f.small}`;
  switch (style) {
    case 'markdown':
      return r.chance(0.5)
        ? `### Conversion\n\n- **Rule:** ${rule}\n- **Calculation:** ${eq(t.step)}\n\n**Answer:** ${t.value} ${t.from} = **${t.answer} ${t.to}**`
        : `## ${cap(t.from)} to ${t.to}\n\n1. Use **${rule}**.\n2. ${f.multiply ? 'Multiply' : 'Divide'}: ${eq(t.step)}.\n\n**Result: ${t.answerShort}**`;
    case 'plain': {
      const how = f.multiply ? 'so multiply' : 'so divide';
      return r.pick([
        `There are ${f.factor} ${f.small} in one ${SINGULAR[f.big]}, ${how}: ${eq(t.step)}. That means ${t.answerSentence}.`,
        `One ${SINGULAR[f.big]} is ${f.factor} ${f.small}, and ${eq(t.step)}. So ${t.answerSentence}.`,
      ]);
    }
    case 'terse':
      if (working) return tersest([`${eq(t.step)} ${t.to}.`, `${t.answerShort}.`]);
      return r.pick([`${t.answerShort}.`, `${t.answer}.`, `${eq(t.step)} ${t.to}.`, `${t.answerSentence}.`]);
    case 'warm':
      return `${r.pick(WARM_OPENERS)} One ${SINGULAR[f.big]} has ${f.factor} ${f.small}, so we ${f.multiply ? 'multiply' : 'divide'}: ${eq(
        t.step,
      )}. So ${t.answerSentence}. ${r.pick(WARM_CLOSERS)}`;
  }
}

// ---------------------------------------------------------------------------------------- facts

const ATTRIBUTE_LABEL: Record<FactsTask['attribute'], string> = {
  capital: 'Capital',
  language: 'Language',
  currency: 'Currency',
  animal: 'National animal',
  'country-of-capital': 'Country',
};

function factsAnswer(r: Rng, t: FactsTask, style: Style, working: boolean): string {
  const c = t.country;
  switch (style) {
    case 'markdown': {
      if (r.chance(0.5)) {
        const facts = [
          `- **Country:** ${c.name}`,
          `- **Capital:** ${c.capital}`,
          `- **Language:** ${c.language}`,
          `- **Currency:** the ${c.currency}`,
          `- **National animal:** the ${c.animal}`,
        ];
        return `**${ATTRIBUTE_LABEL[t.attribute]}: ${t.answer}**\n\n### Quick facts about ${c.name}\n${facts.join('\n')}`;
      }
      return `## ${c.name}\n\n${t.answerSentence.replace(t.answer, `**${t.answer}**`)}.\n\n> **Tip:** ask me about the capital, language, currency or national animal of any country.`;
    }
    case 'plain':
      return r.pick([`${t.answerSentence}.`, `That would be ${t.answer}. ${t.answerSentence}.`, `${t.answerSentence}, as far as I know.`]);
    case 'terse':
      if (working) return tersest([`${t.answerSentence}.`, `${cap(t.answer)}.`]);
      return r.pick([`${t.answer}.`, `${cap(t.answer)}.`]);
    case 'warm':
      return `${r.pick(WARM_OPENERS)} ${t.answerSentence}. ${r.pick([
        "It's a lovely fact to remember!",
        'Keep that curiosity going, you ask great questions!',
        'Nice work learning about the world!',
        'Good on you for looking it up!',
      ])}`;
  }
}

// ---------------------------------------------------------------------------------------- grading

/** A grading comment that works the problem out and compares before its verdict (AnswerOptions.gradingWorkFirst). */
function gradingWorkFirst(r: Rng, t: GradingTask, style: Style): string {
  const work = t.problem.steps.map(eq);
  const y = t.problem.answer;
  const x = t.given;
  const name = t.student;
  // The comparison as a subtraction, which the model can do (it cannot tell two numbers equal at a glance).
  const diff = `${Math.max(x, y)} - ${Math.min(x, y)} = ${Math.abs(y - x)}`;
  switch (style) {
    case 'markdown': {
      const list = work.map((w, i) => `${i + 1}. ${w}`).join('\n');
      const compare = `**${name}'s answer:** ${x}; ${diff}.`;
      return t.correct
        ? `### Working\n${list}\n\n${compare}\n\n### Grade: ✅ Correct\n\n**Comment:** ${name}'s answer of **${y}** is correct.`
        : `### Working\n${list}\n\n${compare}\n\n### Grade: ❌ Incorrect\n\n**Comment:** The answer should be **${y}**, not ${x}.`;
    }
    case 'plain': {
      const lead = `${r.pick(['Working it through', 'Checking the working'])}, ${work.join(', then ')}. ${name} answered ${x}, and ${diff}`;
      return t.correct ? `${lead}, so the answer is correct.` : `${lead}, so it is not correct: the answer should be ${y}.`;
    }
    case 'terse':
      return t.correct
        ? tersest([`${work.join(', ')}; ${diff}: correct.`, `${work.at(-1)}; ${diff}: correct.`])
        : tersest([`${work.join(', ')}; ${diff}: incorrect, ${y}.`, `${work.at(-1)}; ${diff}: incorrect, ${y}.`]);
    case 'warm': {
      const lead = `Let's check it together, ${name}! ${cap(work.join(' and then '))}, and you answered ${x}: ${diff}`;
      if (t.correct)
        return `${lead}, so it is exactly right. ${r.pick(['Great work!', 'Well done!', 'Nice job!'])} ${r.pick(['Keep showing your steps like this!', 'Your working is clear, keep it up!'])}`;
      return `${lead}, so the answer should be ${y}, not ${x}. ${r.pick(['Nice try!', 'Good effort!', "You're close!"])} ${r.pick([
        "Go over that step once more and you'll have it!",
        "Slow down on that step and you'll get it!",
      ])}`;
    }
  }
}

function gradingAnswer(r: Rng, t: GradingTask, style: Style, working: boolean): string {
  const p = t.problem;
  const work = p.steps.map(eq);
  const y = p.answer;
  const x = t.given;
  switch (style) {
    case 'markdown': {
      const list = work.map((w, i) => `${i + 1}. ${w}`).join('\n');
      return t.correct
        ? `### Grade: ✅ Correct\n\n**Working:**\n${list}\n\n**Comment:** ${t.student}'s answer of **${y}** is correct.`
        : `### Grade: ❌ Incorrect\n\n**Correct working:**\n${list}\n\n**Comment:** The answer should be **${y}**, not ${x}.`;
    }
    case 'plain':
      return t.correct
        ? r.pick([
            `${t.student}'s answer is correct. ${work.join(' and ')}, so ${y} is right.`,
            `This is correct. Working it through, ${work.join(', then ')}, which gives ${y}.`,
          ])
        : r.pick([
            `The answer ${x} is not correct. ${work.join(' and ')}, so it should be ${y}.`,
            `This is incorrect. Working it through, ${work.join(', then ')}, so the answer is ${y}, not ${x}.`,
          ]);
    case 'terse':
      if (working)
        return t.correct
          ? tersest([`${work.join(', ')}: correct.`, `Correct: ${y}.`])
          : tersest([
              `${work.join(', ')}: incorrect, ${y}.`,
              `${work[work.length - 1]}: incorrect, ${y}.`,
              `Incorrect, it should be ${y}.`,
            ]);
      return t.correct
        ? r.pick([`Correct: ${y}.`, `Correct, ${y}.`, `Right, ${y}.`])
        : r.pick([`Incorrect, it should be ${y}.`, `Not quite: ${y}, not ${x}.`]);
    case 'warm': {
      const name = t.student;
      if (t.correct) {
        const how =
          work.length > 1 ? `You worked out ${work[0]} first and then ${work.slice(1).join(' and ')}` : `You worked out ${work[0]}`;
        return `${r.pick([`Great work, ${name}!`, `Well done, ${name}!`, `Nice job, ${name}!`])} ${how}, which is exactly right. ${r.pick([
          'Keep showing your steps like this!',
          'Your working is clear and easy to follow, keep it up!',
          'Lovely, careful work!',
        ])}`;
      }
      const k = Math.min(t.wrongStep, work.length - 1);
      const good = k > 0 ? ` You got the first step right: ${work[0]}.` : ' You set the problem up well.';
      return `${r.pick([`Nice try, ${name}!`, `Good effort, ${name}!`, `Great start, ${name}!`])}${good} Check ${p.steps[k].expr} again: ${eq(p.steps[k])}, so the answer should be ${y}, not ${x}. ${r.pick(
        ["Go over that step once more and you'll have it!", "You're close, keep going!", "Slow down on that step and you'll get it!"],
      )}`;
    }
  }
}

/** A correct answer to `task` in `style`. */
export function renderAnswer(r: Rng, task: Task, style: Style, o: AnswerOptions = {}): string {
  const working = o.terseWorking ?? false;
  switch (task.family) {
    case 'arithmetic':
      if (style === 'markdown') return arithmeticMarkdown(r, task);
      if (style === 'terse') return arithmeticTerse(r, task, working);
      return arithmeticProse(r, task, style === 'warm');
    case 'units':
      return unitsAnswer(r, task, style, working);
    case 'facts':
      return factsAnswer(r, task, style, working);
    case 'grading':
      return o.gradingWorkFirst ? gradingWorkFirst(r, task, style) : gradingAnswer(r, task, style, working);
  }
}

/** The style a text looks like (used to measure hint following and the unprompted mix). */
export function classifyStyle(text: string): Style {
  if (/\*\*|^\s*#{1,6} |^\s*(\d+\.|[-*]) /m.test(text)) return 'markdown';
  if (
    /\b(great|nice|well done|good (job|work|thinking|effort|question|try|start)|lovely|wonderful|you've got this|keep it up)\b/i.test(text)
  )
    return 'warm';
  const sentences = text.split(/(?<=[.!?])\s+/).filter((s) => s.trim()).length;
  if (text.length <= TERSE_CHARS && sentences <= 1) return 'terse';
  return 'plain';
}
