/** A message the user sent; the last one can be edited and sent again. */
import { useState } from 'react';
import { envelopeOf, INTERNAL_CONTEXT, stripEnvelope } from '../../main/protocol/messageEnvelope.js';
import { useServices } from '../app/servicesContext.js';
import type { UserItem } from './thread.js';

/** OpenClaw's envelope ("[Fri 2026-11-27 12:03 UTC]"), shown small above the user's words. */
function Envelope({ text }: { text: string }) {
  const envelope = envelopeOf(text);
  if (!envelope) return null;
  return (
    <small className="muted envelope" title="Added by the client (OpenClaw) in front of the message; the model saw it">
      {envelope.slice(1, -1)}
    </small>
  );
}

export function UserMessage({ item, editable }: { item: UserItem; editable: boolean }) {
  const { chat } = useServices();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(item.content);

  if (editing) {
    return (
      <form
        className="message message-user"
        onSubmit={(e) => {
          e.preventDefault();
          setEditing(false);
          void chat.getState().editLast(text);
        }}
      >
        <label htmlFor={`edit-${item.key}`} className="visually-hidden">
          Edit message
        </label>
        <textarea id={`edit-${item.key}`} rows={3} value={text} onChange={(e) => setText(e.target.value)} autoFocus />
        <div className="row">
          <button type="submit" className="btn btn-primary btn-small" disabled={!text.trim()}>
            Resend
          </button>
          <button type="button" className="btn btn-small" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </div>
      </form>
    );
  }
  if (item.content.startsWith(INTERNAL_CONTEXT))
    return (
      <details className="message message-context">
        <summary>Context OpenClaw added (not your words)</summary>
        <p className="user-text">{item.content}</p>
      </details>
    );
  return (
    <article className="message message-user" aria-label={item.role === 'user' ? 'Your message' : `${item.role} message`}>
      {item.role !== 'user' && <span className="badge">{item.role}</span>}
      <Envelope text={item.content} />
      <p className="user-text">{stripEnvelope(item.content)}</p>
      {editable && (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            setText(item.content);
            setEditing(true);
          }}
        >
          Edit
        </button>
      )}
    </article>
  );
}
