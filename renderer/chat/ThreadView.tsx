/** The messages of one conversation, scrolled to the newest while the reader is at the bottom. */
import { useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { AnswerView } from './AnswerView.js';
import { UserMessage } from './UserMessage.js';
import { CLAWLOOP_MINI_EXAMPLE_PROMPTS as EXAMPLE_PROMPTS } from '../../main/protocol/bundledModel.js';
import type { ChatItem } from './thread.js';
import { COMPOSER_ID, focusById } from './useChatShortcuts.js';

const EMPTY: ChatItem[] = [];

/** A new conversation: what to do, and a few prompts to start from (a click puts one in the message box). */
function EmptyThread({ conversationId }: { conversationId: string }) {
  const { chat } = useServices();
  return (
    <li className="thread-empty">
      <p className="muted">
        Ask anything. Rate answers with 👍 or 👎, or add a hint: your model learns from it in the background, and each answer shows how far
        its feedback has got.
      </p>
      <p className="muted">Try one of these:</p>
      <ul className="examples">
        {EXAMPLE_PROMPTS.map(({ prompt: e }) => (
          <li key={e}>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => {
                chat.getState().setDraft(conversationId, e);
                focusById(COMPOSER_ID);
              }}
            >
              {e}
            </button>
          </li>
        ))}
      </ul>
    </li>
  );
}

export function ThreadView({ conversationId }: { conversationId: string }) {
  const { chat } = useServices();
  const items = useStore(chat, (s) => s.threads[conversationId] ?? EMPTY);
  const sending = useStore(chat, (s) => s.sending);
  const box = useRef<HTMLOListElement>(null);
  const pinned = useRef(true);

  useEffect(() => {
    const el = box.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [items]);

  let lastUser = -1;
  let lastAnswer = -1;
  items.forEach((it, i) => {
    if (it.kind === 'user') lastUser = i;
    else if (!it.side) lastAnswer = i;
  });

  return (
    <ol
      ref={box}
      className="thread"
      aria-label="Messages"
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {items.length === 0 && <EmptyThread conversationId={conversationId} />}
      {items.map((it, i) =>
        it.kind === 'user' ? (
          <li key={it.key}>
            <UserMessage item={it} editable={i === lastUser && !sending} />
          </li>
        ) : (
          <li key={it.key}>
            <AnswerView item={it} last={i === lastAnswer && i > lastUser} busy={!!sending} />
          </li>
        ),
      )}
    </ol>
  );
}
