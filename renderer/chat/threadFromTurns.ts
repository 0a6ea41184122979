/**
 * A thread rebuilt from a session's recorded turns, as a person reads it: the newest main turn's
 * request plus its answer; each earlier answer labelled with the turn that wrote it; tool calls with
 * their results; side turns that re-asked an answer's prompt beside it (Ask again), and every other
 * side turn (a client's helper request, a request without a session) in its place in time, marked.
 */
import type { TurnView, WireMessage } from '../api/contract.js';
import { withEarlier } from './answerAlternatives.js';
import { messageText, type AnswerItem, type ChatItem, type ToolCallItem } from './thread.js';

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
    toolCalls: (t.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
  };
}

/** The tool calls of a message of the history, with their arguments as text. */
function historyCalls(m: WireMessage): ToolCallItem[] {
  return (m.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? `call-${i}`,
    name: c.function.name,
    arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments ?? {}),
  }));
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Whether turn `t` wrote history message `m`: the same text, and the same tool calls (by id, else by name and arguments). */
function wrote(t: TurnView, m: WireMessage): boolean {
  if (norm(t.response) !== norm(messageText(m))) return false;
  const calls = historyCalls(m);
  const own = t.tool_calls ?? [];
  return (
    calls.length === own.length &&
    calls.every((c, i) => c.id === own[i].id || (c.name === own[i].name && norm(c.arguments) === norm(own[i].arguments)))
  );
}

/**
 * The turn that wrote the assistant message at position `i` of a request: one whose prompt was the
 * `i` messages before it, else any turn of the session with the same answer (a client may add or drop
 * messages, such as a system prompt, between requests). The newest wins.
 */
function writerOf(turns: TurnView[], m: WireMessage, i: number): TurnView | undefined {
  // Main turns first: an Ask again on the same version may have written the very same text, beside it.
  const newestFirst = [...turns].reverse().sort((a, b) => Number(a.type !== 'main') - Number(b.type !== 'main'));
  return newestFirst.find((t) => t.messages.length === i && wrote(t, m)) ?? newestFirst.find((t) => wrote(t, m));
}

/** The messages of the newest main turn, then its answer; tool results filled into the calls they answer. */
function mainThread(last: TurnView, turns: TurnView[]): ChatItem[] {
  const items: ChatItem[] = [];
  const calls = new Map<string, ToolCallItem>();
  last.messages.forEach((m, i) => {
    if (m.role === 'system' || m.role === 'developer') return;
    const call = m.role === 'tool' && m.tool_call_id ? calls.get(m.tool_call_id) : undefined;
    if (call) {
      call.result = messageText(m);
      return;
    }
    if (m.role !== 'assistant') {
      items.push({ kind: 'user', key: `m-${last.id}-${i}`, role: m.role, content: messageText(m) });
      return;
    }
    const writer = writerOf(turns, m, i);
    const a: AnswerItem = writer
      ? { ...answerFromTurn(writer), key: `m-${last.id}-${i}` }
      : {
          ...answerFromTurn(last),
          key: `m-${last.id}-${i}`,
          turnId: null,
          content: messageText(m),
          reasoning: '',
          version: null,
          unrecorded: true,
        };
    a.toolCalls = historyCalls(m);
    for (const c of a.toolCalls) calls.set(c.id, c);
    items.push(a);
  });
  // Earlier main turns on the very same messages: answers Regenerate replaced, still a click away.
  const earlier = turns.filter((t) => t.type === 'main' && t.id !== last.id && sameMessages(t.messages, last.messages));
  items.push(withEarlier(answerFromTurn(last), earlier.map(answerFromTurn)));
  return items;
}

/** A side turn on its own: the last message it answered, and its answer. */
function sideItem(t: TurnView): AnswerItem {
  const prompt = t.messages.at(-1);
  return { ...answerFromTurn(t), side: { prompt: prompt ? messageText(prompt) : '', role: prompt?.role ?? 'user' } };
}

export function threadFromTurns(turns: TurnView[]): ChatItem[] {
  const sorted = [...turns].sort((a, b) => a.created_at - b.created_at);
  const main = sorted.filter((t) => t.type === 'main');
  const last = main.at(-1);
  const items = last ? mainThread(last, sorted) : [];
  const created = new Map(sorted.map((t) => [t.id, t.created_at]));
  for (const side of sorted.filter((t) => t.type !== 'main')) {
    const target = items.find((a): a is AnswerItem => {
      const t = a.kind === 'answer' && !a.side ? main.find((x) => x.id === a.turnId) : undefined;
      return !!t && sameMessages(t.messages, side.messages);
    });
    if (target) {
      target.again = answerFromTurn(side);
      continue;
    }
    // After the last answer written before it: where it happened in the conversation.
    let at = 0;
    items.forEach((it, i) => {
      if (it.kind === 'answer' && it.turnId && (created.get(it.turnId) ?? Infinity) <= side.created_at) at = i + 1;
    });
    items.splice(at, 0, sideItem(side));
  }
  return items;
}

function sameMessages(a: WireMessage[], b: WireMessage[]): boolean {
  return a.length === b.length && a.every((m, i) => m.role === b[i].role && messageText(m) === messageText(b[i]));
}
