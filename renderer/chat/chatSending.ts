/**
 * Sending: a new message, Stop, Regenerate, editing and resending the last message, and Ask again
 * (the same prompt on today's live version, shown beside the first answer). Tokens are applied to
 * the store at most once per frame, so a fast stream never makes the page re-render per token.
 */
import { CoreUnreachableError } from '../api/transport.js';
import { errorText, type ChatDeps, type GetChat, type SetChat } from './chatStore.js';
import { lastUserIndex, newAnswer, requestMessages, titleFrom, type AnswerItem, type ChatItem } from './thread.js';

export interface SendingActions {
  /** Sends the active conversation's draft. */
  send(): Promise<void>;
  /** Stops the answer streaming now (what arrived stays, marked as stopped). */
  stop(): void;
  /** Asks for the last answer again (it replaces the last answer). */
  regenerate(): Promise<void>;
  /** Replaces the last user message and asks again. */
  editLast(text: string): Promise<void>;
  /** Re-asks the prompt of an answer on the live version, as a side turn shown beside it. */
  askAgain(answerKey: string): Promise<void>;
}

type Patch = (a: AnswerItem) => AnswerItem;

export function sendingActions(set: SetChat, get: GetChat, deps: ChatDeps): SendingActions {
  let controller: AbortController | null = null;

  /** Applies `patch` to the answer `key` of thread `conv` (or to its `again` when `again`). */
  const patchAnswer = (conv: string, key: string, patch: Patch, again = false) =>
    set((s) => {
      const items = s.threads[conv];
      if (!items) return {};
      const next = items.map((it): ChatItem => {
        if (it.kind !== 'answer') return it;
        if (!again && it.key === key) return patch(it);
        if (again && it.key === key && it.again) return { ...it, again: patch(it.again) };
        return it;
      });
      return { threads: { ...s.threads, [conv]: next } };
    });

  /** Streams one answer into the item `key`; resolves when it ended, was stopped or failed. */
  async function stream(conv: string, key: string, items: ChatItem[], end: number, turnType: 'main' | 'side', again = false) {
    controller = new AbortController();
    const ctl = controller;
    set({ sending: conv });
    let pending = { content: '', reasoning: '' };
    let scheduled = false;
    const flush = () => {
      scheduled = false;
      const p = pending;
      pending = { content: '', reasoning: '' };
      if (p.content || p.reasoning) patchAnswer(conv, key, (a) => ({ ...a, content: a.content + p.content, reasoning: a.reasoning + p.reasoning }), again);
    };
    try {
      const result = await deps.api.chat(
        { messages: requestMessages(items, end), sessionId: conv, turnType, signal: ctl.signal },
        (start) => patchAnswer(conv, key, (a) => ({ ...a, turnId: start.completionId || null, version: start.version }), again),
        (d) => {
          pending.content += d.content ?? '';
          pending.reasoning += d.reasoning ?? '';
          if (!scheduled) {
            scheduled = true;
            deps.frame(flush);
          }
        },
      );
      flush();
      patchAnswer(conv, key, (a) => ({ ...a, streaming: false, finishReason: result.finishReason, turnId: result.completionId || a.turnId }), again);
      if (result.completionId) void get().refreshTurn(result.completionId);
    } catch (err) {
      flush();
      const msg =
        err instanceof CoreUnreachableError || /network|fetch|terminated|socket/i.test(errorText(err))
          ? `The core stopped answering: ${errorText(err)}. Your message is kept; use Regenerate when it is back.`
          : errorText(err);
      patchAnswer(conv, key, (a) => ({ ...a, streaming: false, finishReason: 'error', error: msg }), again);
    } finally {
      if (controller === ctl) controller = null;
      set({ sending: null });
    }
  }

  /** Replaces everything from `from` on with a new streaming answer, and streams it. */
  async function answerFrom(conv: string, items: ChatItem[], from: number) {
    const answer = newAnswer();
    const next = [...items.slice(0, from), answer];
    set((s) => ({ threads: { ...s.threads, [conv]: next } }));
    await stream(conv, answer.key, next, from, 'main');
  }

  /** After the first message the core knows the conversation; its list shows the first message. */
  function markSent(conv: string, text: string) {
    set((s) => ({
      conversations: s.conversations.map((c) => (c.id === conv ? { ...c, local: false, preview: c.preview ?? titleFrom(text), last_seen_at: Date.now() } : c)),
    }));
  }

  return {
    async send() {
      const { activeId, sending, drafts } = get();
      const conv = activeId ?? get().newConversation();
      const text = (drafts[conv] ?? '').trim();
      if (!text || sending) return;
      const items = [...(get().threads[conv] ?? []), { kind: 'user' as const, key: `u-${Date.now()}`, role: 'user', content: text }];
      get().setDraft(conv, '');
      markSent(conv, text);
      await answerFrom(conv, items, items.length);
    },

    stop() {
      controller?.abort();
    },

    async regenerate() {
      const conv = get().activeId;
      if (!conv || get().sending) return;
      const items = get().threads[conv] ?? [];
      const u = lastUserIndex(items);
      if (u < 0) return;
      await answerFrom(conv, items, u + 1);
    },

    async editLast(text) {
      const conv = get().activeId;
      const clean = text.trim();
      if (!conv || !clean || get().sending) return;
      const items = [...(get().threads[conv] ?? [])];
      const u = lastUserIndex(items);
      if (u < 0) return;
      items[u] = { ...items[u], content: clean } as ChatItem;
      await answerFrom(conv, items, u + 1);
    },

    async askAgain(answerKey) {
      const conv = get().activeId;
      if (!conv || get().sending) return;
      const items = get().threads[conv] ?? [];
      const at = items.findIndex((it) => it.key === answerKey);
      if (at < 0) return;
      patchAnswer(conv, answerKey, (a) => ({ ...a, again: newAnswer() }));
      await stream(conv, answerKey, items, at, 'side', true);
    },
  };
}
