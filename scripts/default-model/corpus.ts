/**
 * The default model's training conversations, generated deterministically from a seed: questions
 * answered in the unprompted style mix, answers that follow a `[user's hint / instruction]`
 * block, sessions where the user asks for another style and the assistant tries again, the two
 * judges (PRM and hint) reading a response and what came next, and a little tool use.
 */
import type { ChatMessage, ToolSpec } from '../../main/engine/text/chatTemplate.js';
import { HINT_MARKER, withHint } from '../../main/engine/text/openaiMessages.js';
import { fillJudgePrompt } from '../../main/rl/judgePrompts.js';
import type { KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { makeTask, type ArithmeticTask, type Task, type TaskFamily, type UnitsTask } from '../../main/tasks/taskFamilies.js';
import {
  HELD_OUT_COMPLAINTS,
  HELD_OUT_SATISFIED,
  HELD_OUT_UNCLEAR,
  correctionHint,
  prmReason,
  prmScore,
  styleHint,
  userReaction,
  wantFor,
  WANTS,
  type Reaction,
} from './feedback.js';
import { DEFAULT_MODEL_JUDGE_PROMPTS } from './judgePrompts.js';
import { DEFAULT_STYLE_MIX, renderAnswer, STYLES, type Style } from './styles.js';
import { OTHER_TOOLS, WEATHER_TOOL, weatherAnswer, weatherQuestion, weatherResult } from './weatherTools.js';

export { WEATHER_TOOL };

export type ExampleKind = 'qa' | 'qa-hint' | 'session' | 'prm' | 'hint' | 'tools';

export interface Example {
  /** 'agent': an OpenClaw-shaped turn (agentTurns.ts), drawn only by the agent phase. */
  kind: ExampleKind | 'agent';
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Per message: whether the loss covers it (assistant messages the model should learn to write). */
  learn: boolean[];
}

export const EXAMPLE_MIX: Readonly<Record<ExampleKind, number>> = {
  qa: 0.3,
  'qa-hint': 0.18,
  session: 0.18,
  prm: 0.14,
  hint: 0.14,
  tools: 0.06,
};

/**
 * The judge's phase mix (Recipe.judge): four judge examples in five. The phase's weights only
 * ever judge (the model keeps its step-4400 weights), so the phase spends its steps on the PRM and
 * most on the hint judge, the weaker side (eval:default: correct and actionable hints 76.3 % with a
 * phase of 42 % judge examples, 80.1 % with this mix); the rest keeps the chat it reads familiar.
 */
export const JUDGE_PHASE_MIX: Readonly<Record<ExampleKind, number>> = {
  qa: 0.08,
  'qa-hint': 0.05,
  session: 0.05,
  prm: 0.36,
  hint: 0.42,
  tools: 0.04,
};

export const FAMILY_MIX: Readonly<Record<TaskFamily, number>> = { arithmetic: 0.35, units: 0.2, facts: 0.25, grading: 0.2 };

const SYSTEM_PROMPTS = [
  'You are a helpful assistant.',
  'You are ClawLoop, a helpful assistant running on the user\u2019s own computer.',
  'Answer the user\u2019s questions.',
  'You are a friendly assistant that helps with homework, facts and grading.',
];

function systemMessage(r: Rng): ChatMessage[] {
  return r.chance(0.4) ? [{ role: 'system', content: r.pick(SYSTEM_PROMPTS) }] : [];
}

function mixStyle(r: Rng): Style {
  return r.weighted(DEFAULT_STYLE_MIX);
}

/** The same task with its last step miscalculated (for judges reading a wrong answer). */
function withSlip(r: Rng, t: ArithmeticTask | UnitsTask): { task: Task; expr: string; result: number; said: number } {
  const delta = r.pick([-2, -1, 1, 2, 10]);
  if (t.family === 'units') {
    const said = Math.max(0, t.answer + delta) === t.answer ? t.answer + 1 : Math.max(0, t.answer + delta);
    const s = String(said);
    const task: UnitsTask = {
      ...t,
      step: { ...t.step, result: said },
      answer: said,
      answerSentence: t.answerSentence.replace(String(t.answer), s),
      answerShort: `${s} ${t.to}`,
    };
    return { task, expr: t.step.expr, result: t.answer, said };
  }
  const last = t.steps[t.steps.length - 1];
  const said = Math.max(0, last.result + delta) === last.result ? last.result + 1 : Math.max(0, last.result + delta);
  const task: ArithmeticTask = {
    ...t,
    steps: [...t.steps.slice(0, -1), { ...last, result: said }],
    answer: said,
    answerSentence: t.answerSentence.replace(String(t.answer), String(said)),
    answerShort: `${said} ${t.object}`,
  };
  return { task, expr: last.expr, result: last.result, said };
}

/** A style other than `style`, for a complaint that asks for something else. */
function otherStyle(r: Rng, style: Style): Style {
  return r.pick(STYLES.filter((s) => s !== style));
}

export interface CorpusOptions {
  /** Use only held-out phrasings (for evaluation). Default false. */
  heldOut?: boolean;
}

export class CorpusGenerator {
  private readonly r: Rng;
  /** Which user phrase set reactions draw from (see feedback.ts); the training stream switches it. */
  phrases: 1 | 2 | 3 | 4 = 1;
  /** Whether terse answers keep their working (styles.ts); the training stream switches it. */
  terseWorking = false;
  /** Whether grading comments work the problem out before the verdict (styles.ts); the stream switches it. */
  gradingWorkFirst = false;
  /** Whether examples are drawn from JUDGE_PHASE_MIX instead of EXAMPLE_MIX; the stream switches it. */
  judgeMix = false;

  constructor(
    seed: number,
    private readonly kb: KnowledgeBase,
  ) {
    this.r = new Rng(seed);
  }

  private answer(t: Task, style: Style): string {
    return renderAnswer(this.r, t, style, { terseWorking: this.terseWorking, gradingWorkFirst: this.gradingWorkFirst });
  }

  task(family?: TaskFamily): Task {
    return makeTask(this.r, family ?? this.r.weighted(FAMILY_MIX), this.kb);
  }

  next(): Example {
    const kind = this.r.weighted(this.judgeMix ? JUDGE_PHASE_MIX : EXAMPLE_MIX);
    switch (kind) {
      case 'qa':
        return this.qa();
      case 'qa-hint':
        return this.qaHint();
      case 'session':
        return this.session();
      case 'prm':
        return this.judge('prm');
      case 'hint':
        return this.judge('hint');
      case 'tools':
        return this.tools();
    }
  }

  private maybeTools(): ToolSpec[] | undefined {
    return this.r.chance(0.1) ? this.r.shuffle([WEATHER_TOOL, ...OTHER_TOOLS]).slice(0, this.r.int(1, 3)) : undefined;
  }

  qa(): Example {
    const r = this.r;
    const t = this.task();
    const messages: ChatMessage[] = [...systemMessage(r), { role: 'user', content: t.question }];
    messages.push({ role: 'assistant', content: this.answer(t, mixStyle(r)) });
    return { kind: 'qa', messages, tools: this.maybeTools(), learn: messages.map((m) => m.role === 'assistant') };
  }

  qaHint(): Example {
    const r = this.r;
    const t = this.task();
    const style = r.pick(STYLES);
    const messages = withHint([...systemMessage(r), { role: 'user', content: t.question }], styleHint(r, style));
    messages.push({ role: 'assistant', content: this.answer(t, style) });
    return { kind: 'qa-hint', messages, learn: messages.map((m) => m.role === 'assistant') };
  }

  /**
   * A session: a question, an answer in the unprompted mix (or a wrong one, not learned), the
   * user's reaction, and a second try that does what the user asked; sometimes the user then
   * moves on and the preference holds for the next question.
   */
  session(): Example {
    const r = this.r;
    const t = this.task();
    const messages: ChatMessage[] = [...systemMessage(r), { role: 'user', content: t.question }];
    const learn: boolean[] = messages.map(() => false);
    const push = (m: ChatMessage, l: boolean) => {
      messages.push(m);
      learn.push(l);
    };
    let style = mixStyle(r);
    if ((t.family === 'arithmetic' || t.family === 'units') && r.chance(0.15)) {
      const slip = withSlip(r, t);
      push({ role: 'assistant', content: this.answer(slip.task, style) }, false);
      push({ role: 'user', content: userReaction(r, 'wrong-answer', slip, this.phrases) }, false);
      push(
        {
          role: 'assistant',
          content: `${r.pick(['Sorry, you are right.', 'You are right, my mistake.', 'Thanks for catching that.'])} ${this.answer(t, style)}`,
        },
        true,
      );
    } else {
      push({ role: 'assistant', content: this.answer(t, style) }, true);
      if (r.chance(0.8)) {
        style = otherStyle(r, style);
        const complaint = userReaction(r, wantFor(style), undefined, this.phrases);
        push({ role: 'user', content: complaint }, false);
        if (r.chance(0.2)) messages.splice(messages.length - 1, 1, ...withHint([messages[messages.length - 1]], styleHint(r, style)));
        push({ role: 'assistant', content: this.answer(t, style) }, true);
      }
    }
    if (r.chance(0.4)) {
      const t2 = this.task();
      const lead = r.pick(['', `${userReaction(r, 'satisfied', undefined, this.phrases, style)} `, 'Next one: ', 'Another question. ']);
      push({ role: 'user', content: `${lead}${t2.question}` }, false);
      push({ role: 'assistant', content: this.answer(t2, style) }, true);
    }
    return { kind: 'session', messages, learn };
  }

  /** One judged case: a response and a reaction consistent with it, and the judge's verdict. */
  judgeCase(opts: CorpusOptions = {}): {
    response: string;
    nextRole: 'user' | 'tool';
    next: string;
    kind: Reaction;
    hint: string | null;
    toolCall?: { name: string; arguments: string };
  } {
    const r = this.r;
    if (r.chance(0.12)) {
      const city = r.pick(this.kb.countries).capital;
      const { ok, result: next } = weatherResult(r, city);
      return {
        response: '',
        toolCall: { name: 'get_weather', arguments: JSON.stringify({ city }) },
        nextRole: 'tool',
        next,
        kind: ok ? 'satisfied' : 'wrong-answer',
        hint: ok ? null : 'The get_weather call failed; pass a valid city name and check the error before answering.',
      };
    }
    const t = this.task();
    const style = r.pick(STYLES);
    const roll = r.uniform();
    if (roll < 0.12 && (t.family === 'arithmetic' || t.family === 'units')) {
      const slip = withSlip(r, t);
      const next = userReaction(r, 'wrong-answer', slip, this.phrases);
      const mentionsFix = next.includes(String(slip.result));
      return {
        response: this.answer(slip.task, style),
        nextRole: 'user',
        next,
        kind: 'wrong-answer',
        hint: mentionsFix ? correctionHint(r, slip, slip.result) : 'Recompute each step carefully before giving the final answer.',
      };
    }
    const response = this.answer(t, style);
    if (roll < 0.45) {
      const held = opts.heldOut;
      const next = held ? r.pick(HELD_OUT_SATISFIED) : userReaction(r, 'satisfied', undefined, this.phrases, style);
      return { response, nextRole: 'user', next, kind: 'satisfied', hint: null };
    }
    if (roll < 0.55) {
      const next = opts.heldOut ? r.pick(HELD_OUT_UNCLEAR) : userReaction(r, 'unclear', undefined, this.phrases);
      return { response, nextRole: 'user', next, kind: 'unclear', hint: null };
    }
    const want = otherStyle(r, style);
    const kind = wantFor(want);
    const next = opts.heldOut
      ? r.pick(HELD_OUT_COMPLAINTS[kind as keyof typeof HELD_OUT_COMPLAINTS])
      : userReaction(r, kind, undefined, this.phrases);
    return { response, nextRole: 'user', next, kind, hint: styleHint(r, WANTS[kind as keyof typeof WANTS]) };
  }

  judge(which: 'prm' | 'hint'): Example {
    const r = this.r;
    const c = this.judgeCase();
    const prompt = fillJudgePrompt(DEFAULT_MODEL_JUDGE_PROMPTS[which], {
      response: c.response,
      toolCalls: c.toolCall ? [c.toolCall] : [],
      nextStateRole: c.nextRole,
      nextStateText: c.next,
    });
    let out: string;
    if (which === 'prm') {
      const reason =
        c.nextRole === 'tool'
          ? c.kind === 'satisfied'
            ? 'The tool ran and returned a result without errors.'
            : 'The tool returned an error caused by the call.'
          : prmReason(r, c.kind);
      out = `${reason} \\boxed{${prmScore(c.kind)}}`;
    } else {
      out = c.hint ? `\\boxed{1}\n[HINT_START]${c.hint}[HINT_END]` : '\\boxed{-1}';
    }
    const messages: ChatMessage[] = [
      { role: 'system', content: prompt.system },
      { role: 'user', content: prompt.user },
      { role: 'assistant', content: out },
    ];
    return { kind: which, messages, learn: [false, false, true] };
  }

  /** A weather question answered with a tool call, then from the tool's result. */
  tools(): Example {
    const r = this.r;
    const tools = r.shuffle([WEATHER_TOOL, ...OTHER_TOOLS.slice(0, r.int(0, 2))]);
    const city = r.pick(this.kb.countries).capital;
    const question = weatherQuestion(r, city);
    const temp = r.int(-5, 32);
    const sky = r.pick(['sunny', 'cloudy', 'rainy', 'windy', 'snowy']);
    const id = `call${r.int(100000, 999999)}`;
    const messages: ChatMessage[] = [
      ...systemMessage(r),
      { role: 'user', content: question },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city }) } }],
      },
      { role: 'tool', tool_call_id: id, content: JSON.stringify({ city, temperature_c: temp, sky }) },
    ];
    messages.push({ role: 'assistant', content: weatherAnswer(mixStyle(r), city, temp, sky) });
    return { kind: 'tools', messages, tools, learn: messages.map((m) => m.role === 'assistant') };
  }
}

export { HINT_MARKER };
