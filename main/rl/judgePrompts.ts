import fs from 'node:fs';
import path from 'node:path';

/**
 * The judges' prompts. Placeholders: {user_message} (the user's last message before turn t),
 * {response} (the assistant's output at turn t, tool calls included), {next_state} (what came
 * next), {next_state_role} (a description of who produced it). A prompt may leave any of them out.
 *
 * A model folder may override them with `clawloop_judges.json`:
 *   {"prm": {"system": "...", "user": "..."}, "hint": {"system": "...", "user": "..."}}
 * (either key may be left out). The PRM prompt must ask for \boxed{1|-1|0}; the hint prompt for
 * \boxed{1} plus [HINT_START]…[HINT_END], or \boxed{-1}.
 */
export interface JudgePrompt {
  system: string;
  user: string;
}

export interface JudgePrompts {
  prm: JudgePrompt;
  hint: JudgePrompt;
}

const CONTEXT = `Below is one response of an AI assistant, the user's message it answered, and the event that came right after it.

## The user's last message
{user_message}

## The assistant's response
{response}

## What happened next ({next_state_role})
{next_state}
`;

export const DEFAULT_JUDGE_PROMPTS: JudgePrompts = {
  prm: {
    system: 'You grade one step of an AI assistant by what happened right after it. You are strict and brief.',
    user: `${CONTEXT}
Did the response do what the user wanted?
- If what happened next is a message from the user, it is the user's reaction to the response.
- If it is a tool result, the tool ran because the assistant called it: a successful result without errors means the step worked.
- Success looks like: the user moves on to something new, thanks the assistant or confirms; the tool or environment reports success.
- Failure looks like: the user asks to redo or retry, asks for a change or a correction ("no, I meant...", "change X to Y"), or repeats the same request; the tool or environment returns an error caused by the action.
- A request to change something is a failure, not a neutral new instruction. If the reaction is ambiguous or unrelated, the step is unclear.

Think briefly, then end with your score: \\boxed{1} if the step did what the user wanted, \\boxed{-1} if it did not, \\boxed{0} if it is unclear.`,
  },
  hint: {
    system: 'You help an AI assistant learn from what happened after its responses. You are concrete and brief.',
    user: `${CONTEXT}
Does what happened next reveal something that would have made the response better, such as a preference, a correction, a missing detail or a requirement?
If it does, answer \\boxed{1}, then write a concrete hint of one to three sentences telling the assistant what to do differently, between [HINT_START] and [HINT_END].
If it does not, answer \\boxed{-1} and write no hint.`,
  },
};

export const JUDGE_PROMPTS_FILE = 'clawloop_judges.json';

/** The judge prompts for a model folder: its `clawloop_judges.json` entries over the defaults. */
export function loadJudgePrompts(modelDir: string | null): JudgePrompts {
  if (!modelDir) return DEFAULT_JUDGE_PROMPTS;
  const file = path.join(modelDir, JUDGE_PROMPTS_FILE);
  if (!fs.existsSync(file)) return DEFAULT_JUDGE_PROMPTS;
  let raw: Partial<Record<'prm' | 'hint', Partial<JudgePrompt>>>;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const pick = (k: 'prm' | 'hint'): JudgePrompt => {
    const o = raw[k];
    if (o === undefined) return DEFAULT_JUDGE_PROMPTS[k];
    if (typeof o !== 'object' || typeof o.user !== 'string')
      throw new Error(`${file}: "${k}" needs a "user" template string (and optionally "system")`);
    return { system: typeof o.system === 'string' ? o.system : DEFAULT_JUDGE_PROMPTS[k].system, user: o.user };
  };
  return { prm: pick('prm'), hint: pick('hint') };
}

/** What the judges read about one turn (judgeView.ts builds it from a stored turn). */
export interface JudgeCase {
  /** The user's last message before the answer ('' or left out when there is none). */
  userMessage?: string;
  /** The assistant's answer text at turn t. */
  response: string;
  /** Tool calls of turn t (shown to the judge as text). */
  toolCalls: Array<{ name: string; arguments: string }>;
  nextStateRole: string;
  nextStateText: string;
}

function roleDescription(role: string): string {
  if (role === 'user') return "the user's reply";
  if (role === 'tool') return 'the result of a tool the assistant called';
  return `a ${role} message`;
}

/** Fills a prompt's placeholders for one case. */
export function fillJudgePrompt(p: JudgePrompt, c: JudgeCase): { system: string; user: string } {
  const calls = c.toolCalls.map((tc) => `[calls tool ${tc.name} with ${tc.arguments}]`);
  const response = [c.response.trim(), ...calls].filter(Boolean).join('\n') || '(empty response)';
  const vars: Record<string, string> = {
    user_message: c.userMessage?.trim() || '(none)',
    response,
    next_state: c.nextStateText.trim() || '(empty)',
    next_state_role: roleDescription(c.nextStateRole),
  };
  const fill = (s: string) => s.replace(/\{(user_message|response|next_state|next_state_role)\}/g, (_, k: string) => vars[k]);
  return { system: fill(p.system), user: fill(p.user) };
}
