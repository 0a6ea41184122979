/** The conversation list: new, search, open, rename, delete (with a confirmation); grouped by day. */
import { useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { ConfirmDialog } from '../ui/ConfirmDialog.js';
import { ErrorText } from '../ui/ErrorText.js';
import { when } from '../ui/format.js';
import type { ConversationSummary } from './chatStore.js';
import { groupByDate, matches } from './conversationGroups.js';
import { SEARCH_ID } from './useChatShortcuts.js';

/** The core's pseudo-session of requests that came without a session id: listed, not renamed or deleted here. */
const UNATTACHED = 'unknown';
const titleOf = (c: ConversationSummary) =>
  c.id === UNATTACHED ? 'Requests without a session' : c.title || c.preview || 'New conversation';

function RenameForm({ c, done }: { c: ConversationSummary; done: () => void }) {
  const { chat } = useServices();
  // Prefilled with what the list shows, so a small change is a small edit.
  const [title, setTitle] = useState(titleOf(c));
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
      <input
        id={`rename-${c.id}`}
        value={title}
        onChange={(e) => setTitle(e.target.value)}
        autoFocus
        onFocus={(e) => e.currentTarget.select()}
        onKeyDown={(e) => {
          if (e.key !== 'Escape') return;
          e.preventDefault();
          done();
        }}
      />
      <button type="submit" className="btn btn-small">
        Save
      </button>
    </form>
  );
}

/** One conversation: open it, or its Rename and Delete buttons. */
function ConversationItem({
  c,
  active,
  rename,
  remove,
}: {
  c: ConversationSummary;
  active: boolean;
  rename: () => void;
  remove: () => void;
}) {
  const { chat } = useServices();
  return (
    <>
      <button
        type="button"
        className="conversation-open"
        aria-current={active ? 'true' : undefined}
        onClick={() => void chat.getState().select(c.id)}
      >
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
        “{titleOf(c)}” and its samples that have not been trained yet are removed from this machine. Adapters already trained on it keep
        what they learned.
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
  const [query, setQuery] = useState('');
  const shown = conversations.filter((c) => matches(c, titleOf(c), query));

  return (
    <aside className="conversations" id="conversation-list" aria-label="Conversations">
      <button
        type="button"
        className="btn btn-primary new-conversation"
        onClick={() => chat.getState().newConversation()}
        disabled={!!sending}
      >
        New conversation
      </button>
      <label htmlFor={SEARCH_ID} className="visually-hidden">
        Search conversations
      </label>
      <input
        id={SEARCH_ID}
        type="search"
        className="conversation-search"
        placeholder="Search (Ctrl+K)"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <ErrorText>{listError}</ErrorText>
      {shown.length === 0 && query.trim() && <p className="muted">No conversation matches “{query.trim()}”.</p>}
      {groupByDate(shown, Date.now()).map((g) => (
        <section key={g.label} aria-label={g.label}>
          <h2 className="conversation-group">{g.label}</h2>
          <ul>
            {g.items.map((c) => (
              <li key={c.id} className={c.id === activeId ? 'active' : undefined}>
                {renaming === c.id ? (
                  <RenameForm c={c} done={() => setRenaming(null)} />
                ) : (
                  <ConversationItem c={c} active={c.id === activeId} rename={() => setRenaming(c.id)} remove={() => setDeleting(c)} />
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
      {deleting && <DeleteConversation c={deleting} close={() => setDeleting(null)} />}
    </aside>
  );
}
