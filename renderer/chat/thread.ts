/**
 * A conversation as the chat screen shows it, and the messages a request sends from it (the thread
 * rebuilt from a session's recorded turns is threadFromTurns.ts).
 */
import { stripEnvelope } from '../../main/protocol/messageEnvelope.js';
import type { WireMessage } from '../api/contract.js';

export interface UserItem {
  kind: 'user';
  key: string;
  /** user, or tool/system when a recorded session (e.g. from OpenClaw) had those. */
  role: string;
  content: string;
}

/** A tool the model called in an answer, with the result the client sent back (when it did). */
export interface ToolCallItem {
  id: string;
  name: string;
  /** As the model wrote them (JSON text, usually). */
  arguments: string;
  /** The tool message answering this call, from the next request; undefined while none came. */
  result?: string;
}

/** An answer of the model; `again` is the same prompt re-asked on the live version (Ask again). */
export interface AnswerItem {
  kind: 'answer';
  key: string;
  /** The recorded turn (completion id); null until the core has answered the request. */
  turnId: string | null;
  content: string;
  reasoning: string;
  /** The adapter version that wrote it (0 = base model). */
  version: number | null;
  streaming: boolean;
  /** stop, length, tool_calls, abort (stopped by the user), or null while streaming. */
  finishReason: string | null;
  /** Why it failed, in words, when it did. */
  error: string | null;
  again?: AnswerItem;
  /** The tools it called (OpenClaw and other agents), each with its result. */
  toolCalls?: ToolCallItem[];
  /**
   * A side turn shown in its own right (a helper request such as a compaction summary, or a request
   * without a session): the last message it answered. Side turns are served, never trained on.
   */
  side?: { prompt: string; role: string };
  /** In the conversation's history, but no recorded turn wrote it (another model, or a client that edited it). */
  unrecorded?: boolean;
  /**
   * Every answer Regenerate wrote to this prompt, oldest first (answerAlternatives.ts). This one's own
   * entry is brought up to date when another is shown: the item itself is the truth while shown.
   */
  alternatives?: AnswerItem[];
  /** Which of `alternatives` this one is. */
  alternativeIndex?: number;
}

export type ChatItem = UserItem | AnswerItem;

let counter = 0;
/** A key for a list item, unique within this page. */
export function itemKey(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

export function newAnswer(): AnswerItem {
  return {
    kind: 'answer',
    key: itemKey('a'),
    turnId: null,
    content: '',
    reasoning: '',
    version: null,
    streaming: true,
    finishReason: null,
    error: null,
  };
}

/** The messages to send for everything before `end` (answers that failed or are empty are left out). */
export function requestMessages(items: ChatItem[], end = items.length): WireMessage[] {
  const out: WireMessage[] = [];
  for (const it of items.slice(0, end)) {
    if (it.kind === 'user') out.push({ role: it.role as WireMessage['role'], content: it.content });
    else if (!it.error && it.content) out.push({ role: 'assistant', content: it.content });
  }
  return out;
}

/** Index of the last user item, or -1. */
export function lastUserIndex(items: ChatItem[]): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i].kind === 'user') return i;
  return -1;
}

export function messageText(m: WireMessage): string {
  const c = m.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => ('text' in p && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

/** A title from the first user message, in the user's own words (no OpenClaw envelope): one line, at most 60 characters. */
export function titleFrom(text: string): string {
  const line = stripEnvelope(text).replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}
