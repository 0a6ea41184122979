/**
 * Sending: a new message, Stop, Regenerate, editing and resending the last message, and Ask again
 * (the same prompt on today's live version, shown beside the first answer). Tokens are applied to
 * the store at most once per frame, so a fast stream never makes the page re-render per token.
 */
import { ApiRequestError, CoreUnreachableError } from '../api/transport.js';
import type { ChatDelta } from '../api/chatStream.js';
import type { ChatContext, ChatDeps, ConversationSummary, GetChat, SetChat } from './chatStore.js';
import { regenerated, showingAlternative } from './answerAlternatives.js';
import { withSystemPrompt } from './conversationSettings.js';
import { errorText } from './errorText.js';
import { lastUserIndex, newAnswer, requestMessages, titleFrom, type AnswerItem, type ChatItem } from './thread.js';
import { forgetUnsent, keepUnsent } from './unsentMessages.js';
import { omit } from './chatConversations.js';

export interface SendingActions {
  /** Sends the active conversation's draft. */
  send(): Promise<void>;
  /** Stops the answer streaming now (what arrived stays, marked as stopped). */
  stop(): void;
  /** Asks for the last answer again: the new one is shown, the earlier ones stay a click away. */
  regenerate(): Promise<void>;
  /** Shows another of the answers Regenerate wrote in place of answer `answerKey` (0 = the first). */
  showAlternative(answerKey: string, index: number): void;
  /** Replaces the last user message and asks again. */
  editLast(text: string): Promise<void>;
  /** Re-asks the prompt of an answer on the live version, as a side turn shown beside it. */
  askAgain(answerKey: string): Promise<void>;
}

type Patch = (a: AnswerItem) => AnswerItem;

/** Where a streamed answer lands: item `key` of thread `conv`, or that item's `again` (Ask again). */
interface Target {
  conv: string;
  key: string;
  again: boolean;
}

/** The answer streaming now, so that Stop can abort it. */
interface Streaming {
  controller: AbortController | null;
}

export function sendingActions(set: SetChat, get: GetChat, deps: ChatDeps): SendingActions {
  const c: ChatContext = { set, get, deps };
  const now: Streaming = { controller: null };
  return {
    send: () => send(c, now),
    stop: () => now.controller?.abort(),
    regenerate: () => regenerate(c, now),
    showAlternative: (answerKey, index) => showAlternative(c, answerKey, index),
    editLast: (text) => editLast(c, now, text),
    askAgain: (answerKey) => askAgain(c, now, answerKey),
  };
}

async function send(c: ChatContext, now: Streaming): Promise<void> {
  const { activeId, sending, drafts } = c.get();
  const conv = activeId ?? c.get().newConversation();
  const text = (drafts[conv] ?? '').trim();
  if (!text || sending) return;
  const before: Before = { items: c.get().threads[conv] ?? [], listed: c.get().conversations.find((x) => x.id === conv) };
  const items = [...before.items, { kind: 'user' as const, key: `u-${Date.now()}`, role: 'user', content: text }];
  c.get().setDraft(conv, '');
  markSent(c.set, conv, text);
  const err = await answerFrom(c, now, conv, items, items.length);
  if (isOverflow(err)) giveBack(c, conv, text, before);
}

/** The thread and the list entry of a conversation before a message was sent in it. */
interface Before {
  items: ChatItem[];
  listed: ConversationSummary | undefined;
}

const isOverflow = (err: unknown) => err instanceof ApiRequestError && err.code === 'context_length_exceeded';

/** Why a message came back to the box, in words. */
export const TOO_LONG =
  'Not sent: with this message the conversation is longer than the model can read. Your message is back in the box: shorten it, or start a new conversation.';

/**
 * The core refused a message for its length (nothing was recorded): the thread and the list are
 * as they were, and the message is back in the box (before anything typed since), with why.
 */
function giveBack(c: ChatContext, conv: string, text: string, before: Before): void {
  c.set((s) => ({
    threads: { ...s.threads, [conv]: before.items },
    conversations: before.listed ? s.conversations.map((x) => (x.id === conv ? before.listed! : x)) : s.conversations,
  }));
  const typed = c.get().drafts[conv] ?? '';
  c.get().setDraft(conv, typed.trim() ? `${text}\n\n${typed}` : text);
  c.set((s) => ({ notSent: { ...s.notSent, [conv]: TOO_LONG } }));
}

async function regenerate(c: ChatContext, now: Streaming): Promise<void> {
  const conv = c.get().activeId;
  if (!conv || c.get().sending) return;
  const items = c.get().threads[conv] ?? [];
  const u = lastUserIndex(items);
  if (u < 0) return;
  await answerFrom(c, now, conv, items, u + 1, items[u + 1]);
}

function showAlternative(c: ChatContext, answerKey: string, index: number): void {
  const conv = c.get().activeId;
  if (!conv || c.get().sending) return;
  c.set((s) => ({
    threads: {
      ...s.threads,
      [conv]: (s.threads[conv] ?? []).map((it) => (it.kind === 'answer' && it.key === answerKey ? showingAlternative(it, index) : it)),
    },
  }));
}

async function editLast(c: ChatContext, now: Streaming, text: string): Promise<void> {
  const conv = c.get().activeId;
  const clean = text.trim();
  if (!conv || !clean || c.get().sending) return;
  const items = [...(c.get().threads[conv] ?? [])];
  const u = lastUserIndex(items);
  if (u < 0) return;
  items[u] = { ...items[u], content: clean } as ChatItem;
  await answerFrom(c, now, conv, items, u + 1);
}

async function askAgain(c: ChatContext, now: Streaming, answerKey: string): Promise<void> {
  const conv = c.get().activeId;
  if (!conv || c.get().sending) return;
  const items = c.get().threads[conv] ?? [];
  const at = items.findIndex((it) => it.key === answerKey);
  if (at < 0) return;
  patchAnswer(c.set, { conv, key: answerKey, again: false }, (a) => ({ ...a, again: newAnswer() }));
  await stream(c, now, { conv, key: answerKey, again: true }, items, at, 'side');
}

/** After the first message the core knows the conversation; its list shows the first message. */
function markSent(set: SetChat, conv: string, text: string): void {
  set((s) => ({
    conversations: s.conversations.map((c) =>
      c.id === conv ? { ...c, local: false, preview: c.preview ?? titleFrom(text), last_seen_at: Date.now() } : c,
    ),
  }));
}

/** Replaces everything from `from` on with a new streaming answer (keeping `replaced` as an alternative), and streams it. */
async function answerFrom(
  c: ChatContext,
  now: Streaming,
  conv: string,
  items: ChatItem[],
  from: number,
  replaced?: ChatItem,
): Promise<unknown> {
  const answer = regenerated(replaced, newAnswer());
  const next = [...items.slice(0, from), answer];
  c.set((s) => ({ threads: { ...s.threads, [conv]: next } }));
  return stream(c, now, { conv, key: answer.key, again: false }, next, from, 'main');
}

function patchAnswer(set: SetChat, t: Target, patch: Patch): void {
  set((s) => {
    const items = s.threads[t.conv];
    if (!items) return {};
    const next = items.map((it): ChatItem => {
      if (it.kind !== 'answer' || it.key !== t.key) return it;
      if (!t.again) return patch(it);
      return it.again ? { ...it, again: patch(it.again) } : it;
    });
    return { threads: { ...s.threads, [t.conv]: next } };
  });
}

/** Gathers streamed tokens and hands them on at most once per frame. */
function tokenBatcher(
  frame: ChatDeps['frame'],
  apply: (content: string, reasoning: string) => void,
): { push(d: ChatDelta): void; flush(): void } {
  let pending = { content: '', reasoning: '' };
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const p = pending;
    pending = { content: '', reasoning: '' };
    if (p.content || p.reasoning) apply(p.content, p.reasoning);
  };
  return {
    push(d) {
      pending.content += d.content ?? '';
      pending.reasoning += d.reasoning ?? '';
      if (!scheduled) {
        scheduled = true;
        frame(flush);
      }
    },
    flush,
  };
}

function unreachable(err: unknown): boolean {
  return err instanceof CoreUnreachableError || /network|fetch|terminated|socket/i.test(errorText(err));
}

function failureText(err: unknown): string {
  const text = errorText(err);
  if (unreachable(err)) return `The core stopped answering: ${text}. Your message is kept; use Regenerate when it is back.`;
  if (isOverflow(err))
    return 'Not answered: the conversation is longer than the model can read. Shorten the last message (Edit) or start a new conversation.';
  return text;
}

/**
 * Streams one answer into `t`, asking with `items` before `end`; resolves when it ended, was stopped
 * or failed, with the error it failed with (null otherwise).
 */
async function stream(
  c: ChatContext,
  now: Streaming,
  t: Target,
  items: ChatItem[],
  end: number,
  turnType: 'main' | 'side',
): Promise<unknown> {
  const ctl = new AbortController();
  now.controller = ctl;
  c.set({ sending: t.conv });
  const patch = (p: Patch) => patchAnswer(c.set, t, p);
  const tokens = tokenBatcher(c.deps.frame, (content, reasoning) =>
    patch((a) => ({ ...a, content: a.content + content, reasoning: a.reasoning + reasoning })),
  );
  try {
    const settings = c.get().conversationSettings[t.conv];
    const request = {
      messages: withSystemPrompt(settings, requestMessages(items, end)),
      sessionId: t.conv,
      turnType,
      signal: ctl.signal,
      ...(settings?.temperature != null ? { temperature: settings.temperature } : {}),
    };
    const result = await c.deps.api.chat(
      request,
      (start) => patch((a) => ({ ...a, turnId: start.completionId || null, version: start.version })),
      tokens.push,
    );
    tokens.flush();
    patch((a) => ({ ...a, streaming: false, finishReason: result.finishReason, turnId: result.completionId || a.turnId }));
    if (turnType === 'main') forgetUnsent(c, t.conv);
    // The core knows the conversation now: an earlier failure to open it no longer holds.
    if (c.get().threadErrors[t.conv]) c.set((s) => ({ threadErrors: omit(s.threadErrors, t.conv) }));
    if (result.completionId) void c.get().refreshTurn(result.completionId);
    return null;
  } catch (err) {
    tokens.flush();
    patch((a) => ({ ...a, streaming: false, finishReason: 'error', error: failureText(err) }));
    // The message survives a reconnect's reload of the thread, and a page reload, until answered.
    const asked = items[end - 1];
    if (turnType === 'main' && unreachable(err) && asked?.kind === 'user') keepUnsent(c, t.conv, asked.content);
    return err;
  } finally {
    if (now.controller === ctl) now.controller = null;
    c.set({ sending: null });
  }
}
