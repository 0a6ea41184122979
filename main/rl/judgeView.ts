import { messageText } from '../engine/text/index.js';
import type { WireMessage } from '../protocol/openai.js';
import type { StoredTurn } from '../store/turnStore.js';
import type { JudgeCase } from './judgePrompts.js';

/**
 * What the judges read of a turn: a compact view, never the whole request. An agent's request
 * carries a long system prompt, tool schemas and the conversation so far (OpenClaw's default is
 * about 40,000 characters); the judges need only the user's last message, the answer with its
 * tool calls, and what came next. Null when the turn has no next state (nothing to judge from).
 */
export function judgeView(turn: StoredTurn): JudgeCase | null {
  const ns = turn.nextState;
  if (!ns) return null;
  return {
    userMessage: lastUserMessage(turn.requestMessages as WireMessage[]),
    response: turn.responseText,
    toolCalls: (turn.toolCalls ?? []).map((tc) => ({ name: tc.name, arguments: tc.arguments })),
    nextStateRole: ns.role,
    nextStateText: ns.text,
  };
}

/** The text of the request's last user message ('' when it has none, or its content is not text). */
export function lastUserMessage(messages: readonly WireMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    try {
      return messageText(messages[i].content, `messages[${i}].content`);
    } catch {
      return ''; // images or other parts the judge cannot read: it judges without the question
    }
  }
  return '';
}

/**
 * The largest text of a view field (characters), tried first, then smaller ones until the judge's
 * prompt fits its context. A judge reads the head and tail of anything longer (see {@link clipText}).
 */
export const VIEW_BUDGETS: readonly number[] = [4000, 1500, 600, 250, 100, 60];

/** Keeps the head and tail of a text within `maxChars` (the judge sees how it starts and ends). */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.6);
  return `${text.slice(0, head)} [… ${text.length - maxChars} characters left out …] ${text.slice(text.length - (maxChars - head))}`;
}

/**
 * The view with each of its texts clipped to `maxChars`: the user's message, the answer, every
 * tool call's arguments and the next state. A turn with many tool calls keeps the first and last
 * few, so the view stays bounded however many calls an agent made.
 */
export function compactJudgeCase(c: JudgeCase, maxChars: number): JudgeCase {
  const MAX_CALLS = 6;
  const calls = c.toolCalls.map((tc) => ({ name: clipText(tc.name, 80), arguments: clipText(tc.arguments, maxChars) }));
  const kept =
    calls.length <= MAX_CALLS
      ? calls
      : [
          ...calls.slice(0, MAX_CALLS / 2),
          { name: '…', arguments: `${calls.length - MAX_CALLS} more tool calls left out` },
          ...calls.slice(-MAX_CALLS / 2),
        ];
  return {
    ...c,
    userMessage: c.userMessage === undefined ? undefined : clipText(c.userMessage, maxChars),
    response: clipText(c.response, maxChars),
    toolCalls: kept,
    nextStateText: clipText(c.nextStateText, maxChars),
  };
}
