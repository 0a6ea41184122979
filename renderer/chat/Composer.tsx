/**
 * The message box: Enter sends, Shift+Enter starts a new line; Send becomes Stop while an answer
 * streams. What is typed is saved as a draft at once, so a reload or a crash never loses it.
 */
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';

export function Composer({ conversationId }: { conversationId: string }) {
  const { chat } = useServices();
  const draft = useStore(chat, (s) => s.drafts[conversationId] ?? '');
  const sending = useStore(chat, (s) => s.sending);
  const streamingHere = sending === conversationId;

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void chat.getState().send();
      }}
    >
      <label htmlFor="message-input" className="visually-hidden">
        Message
      </label>
      <textarea
        id="message-input"
        rows={3}
        value={draft}
        placeholder="Message your model… (Enter sends, Shift+Enter for a new line)"
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
    </form>
  );
}
