/**
 * A conversation as the chat screen shows it, and how it maps to and from the core's records:
 * the messages a request sends, and the thread rebuilt from a session's recorded turns.
 */
import type { TurnView, WireMessage } from '../api/contract.js';

export interface UserItem {
  kind: 'user';
  key: string;
  /** user, or tool/system when a recorded session (e.g. from OpenClaw) had those. */
  role: string;
  content: string;
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
}

export type ChatItem = UserItem | AnswerItem;

let counter = 0;
/** A key for a list item, unique within this page. */
export function itemKey(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

export function newAnswer(): AnswerItem {
  return { kind: 'answer', key: itemKey('a'), turnId: null, content: '', reasoning: '', version: null, streaming: true, finishReason: null, error: null };
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

function answerFromTurn(t: TurnView): AnswerItem {
  return {
    kind: 'answer',
    key: `t-${t.id}`,
    turnId: t.id,
    content: t.response,
    reasoning: t.reasoning ?? '',
    version: t.adapter_version,
    streaming: false,
    finishReason: t.finish_reason,
    error: null,
  };
}

/**
 * Rebuilds a thread from a session's turns: the newest main turn's request plus its answer, each
 * earlier answer matched to the turn that wrote it (same position, same text), and side turns that
 * re-asked an answer's prompt attached to it as `again`.
 */
export function threadFromTurns(turns: TurnView[]): ChatItem[] {
  const sorted = [...turns].sort((a, b) => a.created_at - b.created_at);
  const main = sorted.filter((t) => t.type === 'main');
  const last = main.at(-1) ?? sorted.at(-1);
  if (!last) return [];
  const items: ChatItem[] = [];
  const answers: AnswerItem[] = [];
  last.messages.forEach((m, i) => {
    if (m.role === 'system' || m.role === 'developer') return;
    if (m.role !== 'assistant') {
      items.push({ kind: 'user', key: `m-${last.id}-${i}`, role: m.role, content: messageText(m) });
      return;
    }
    const text = messageText(m);
    const writer = [...main].reverse().find((t) => t.messages.length === i && t.response === text);
    const a = writer ? answerFromTurn(writer) : { ...answerFromTurn(last), key: `m-${last.id}-${i}`, turnId: null, content: text, reasoning: '', version: null };
    items.push(a);
    answers.push(a);
  });
  const final = answerFromTurn(last);
  items.push(final);
  answers.push(final);
  for (const side of sorted.filter((t) => t.type !== 'main')) {
    const target = answers.find((a) => {
      const t = main.find((x) => x.id === a.turnId);
      return t && sameMessages(t.messages, side.messages);
    });
    if (target) target.again = answerFromTurn(side);
  }
  return items;
}

function sameMessages(a: WireMessage[], b: WireMessage[]): boolean {
  return a.length === b.length && a.every((m, i) => m.role === b[i].role && messageText(m) === messageText(b[i]));
}

/** A title from the first user message: one line, at most 60 characters. */
export function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}
