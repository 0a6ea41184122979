/** The conversation list: new, open, rename, delete (with a confirmation). */
import { useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { ConfirmDialog } from '../ui/ConfirmDialog.js';
import { ErrorText } from '../ui/ErrorText.js';
import { when } from '../ui/format.js';
import type { ConversationSummary } from './chatStore.js';

/** The core's pseudo-session of requests that came without a session id: listed, not renamed or deleted here. */
const UNATTACHED = 'unknown';
const titleOf = (c: ConversationSummary) => (c.id === UNATTACHED ? 'Requests without a session' : c.title || c.preview || 'New conversation');

function RenameForm({ c, done }: { c: ConversationSummary; done: () => void }) {
  const { chat } = useServices();
  const [title, setTitle] = useState(c.title ?? '');
  return (
    <form
      className="rename-form"
      onSubmit={(e) => {
        e.preventDefault();
        void chat.getState().rename(c.id, title);
        done();
      }}
    >
      <label className="visually-hidden" htmlFor={`rename-${c.id}`}>
        Conversation title
      </label>
      <input id={`rename-${c.id}`} value={title} onChange={(e) => setTitle(e.target.value)} autoFocus onKeyDown={(e) => e.key === 'Escape' && done()} />
      <button type="submit" className="btn btn-small">
        Save
      </button>
    </form>
  );
}

/** One conversation: open it, or its Rename and Delete buttons. */
function ConversationItem({ c, active, rename, remove }: { c: ConversationSummary; active: boolean; rename: () => void; remove: () => void }) {
  const { chat } = useServices();
  return (
    <>
      <button type="button" className="conversation-open" aria-current={active ? 'true' : undefined} onClick={() => void chat.getState().select(c.id)}>
        <span className="conversation-title">{titleOf(c)}</span>
        <span className="muted conversation-time">{when(c.last_seen_at ?? c.created_at)}</span>
      </button>
      {c.id !== UNATTACHED && (
      <span className="conversation-actions">
        <button type="button" className="btn btn-small" aria-label={`Rename ${titleOf(c)}`} onClick={rename}>
          ✎
        </button>
        <button type="button" className="btn btn-small" aria-label={`Delete ${titleOf(c)}`} onClick={remove}>
          🗑
        </button>
      </span>
      )}
    </>
  );
}

function DeleteConversation({ c, close }: { c: ConversationSummary; close: () => void }) {
  const { chat } = useServices();
  return (
    <ConfirmDialog
      title="Delete this conversation?"
      confirmLabel="Delete conversation"
      onCancel={close}
      onConfirm={() => {
        void chat.getState().remove(c.id);
        close();
      }}
    >
      <p>
        “{titleOf(c)}” and its samples that have not been trained yet are removed from this machine. Adapters already trained on it keep what they learned.
      </p>
    </ConfirmDialog>
  );
}

export function ConversationList() {
  const { chat } = useServices();
  const conversations = useStore(chat, (s) => s.conversations);
  const activeId = useStore(chat, (s) => s.activeId);
  const listError = useStore(chat, (s) => s.listError);
  const sending = useStore(chat, (s) => s.sending);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<ConversationSummary | null>(null);

  return (
    <aside className="conversations" aria-label="Conversations">
      <button type="button" className="btn btn-primary new-conversation" onClick={() => chat.getState().newConversation()} disabled={!!sending}>
        New conversation
      </button>
      <ErrorText>{listError}</ErrorText>
      <ul>
        {conversations.map((c) => (
          <li key={c.id} className={c.id === activeId ? 'active' : undefined}>
            {renaming === c.id ? (
              <RenameForm c={c} done={() => setRenaming(null)} />
            ) : (
              <ConversationItem c={c} active={c.id === activeId} rename={() => setRenaming(c.id)} remove={() => setDeleting(c)} />
            )}
          </li>
        ))}
      </ul>
      {deleting && <DeleteConversation c={deleting} close={() => setDeleting(null)} />}
    </aside>
  );
}
