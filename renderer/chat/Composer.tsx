/**
 * The message box: Enter sends, Shift+Enter starts a new line; Send becomes Stop while an answer
 * streams. What is typed is saved as a draft at once, so a reload or a crash never loses it; a
 * message the core refuses for its length comes back to the box, with why. Under it, how much of
 * the model's context the conversation fills.
 */
import { useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { ContextMeter } from './ContextMeter.js';
import { COMPOSER_ID, SHORTCUTS } from './useChatShortcuts.js';

/** The box's keyboard shortcuts, under it (the box is described by them). */
function ShortcutsLine() {
  return (
    <p id="composer-shortcuts" className="composer-shortcuts muted">
      {SHORTCUTS.map(([keys, what], i) => (
        <span key={keys}>
          {i > 0 && ' · '}
          <kbd>{keys}</kbd> {what}
        </span>
      ))}
    </p>
  );
}

/** Why the last message came back to the box, until the box changes. */
function NotSentNote({ conversationId }: { conversationId: string }) {
  const { chat } = useServices();
  const notSent = useStore(chat, (s) => s.notSent[conversationId] ?? null);
  if (!notSent) return null;
  return (
    <p role="alert" className="error-text composer-note">
      {notSent}
    </p>
  );
}

export function Composer({ conversationId }: { conversationId: string }) {
  const { chat } = useServices();
  const draft = useStore(chat, (s) => s.drafts[conversationId] ?? '');
  const sending = useStore(chat, (s) => s.sending);
  const streamingHere = sending === conversationId;
  const box = useRef<HTMLTextAreaElement>(null);
  // Ready to type: on load and in every conversation opened.
  useEffect(() => {
    box.current?.focus();
  }, [conversationId]);

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void chat.getState().send();
      }}
    >
      <label htmlFor={COMPOSER_ID} className="visually-hidden">
        Message
      </label>
      <textarea
        id={COMPOSER_ID}
        ref={box}
        rows={3}
        aria-describedby="composer-shortcuts"
        value={draft}
        placeholder="Message your model…"
        onChange={(e) => chat.getState().setDraft(conversationId, e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            if (!sending) void chat.getState().send();
          }
        }}
      />
      {streamingHere ? (
        <button type="button" className="btn" onClick={() => chat.getState().stop()}>
          Stop
        </button>
      ) : (
        <button type="submit" className="btn btn-primary" disabled={!draft.trim() || !!sending}>
          Send
        </button>
      )}
      <NotSentNote conversationId={conversationId} />
      <ContextMeter conversationId={conversationId} />
      <ShortcutsLine />
    </form>
  );
}
