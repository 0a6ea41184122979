/**
 * The API key: whether one is set, set a new one, regenerate, remove, and reveal the key this
 * browser knows (the core never sends a key back, except to whoever just set it).
 */
import { useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { Field } from '../ui/Field.js';

export function ApiKeySection({ keySet }: { keySet: boolean | null }) {
  const { connect } = useServices();
  const known = useStore(connect, (s) => s.knownKey);
  const revealed = useStore(connect, (s) => s.revealed);
  const message = useStore(connect, (s) => s.keyMessage);
  const error = useStore(connect, (s) => s.keyError);
  const [draft, setDraft] = useState('');

  return (
    <section className="card" aria-labelledby="key-title-connect">
      <h2 id="key-title-connect">API key</h2>
      <p>
        {keySet === null
          ? 'Checking…'
          : keySet
            ? 'A key is set: every client (OpenClaw, this app) must send it.'
            : 'No key is set: any program on this machine can use the API.'}
      </p>
      {known && (
        <p className="row">
          <span>This browser’s key:</span>
          <code aria-label={revealed ? 'API key' : 'API key, hidden'}>{revealed ? known : '•'.repeat(Math.min(24, known.length))}</code>
          <button type="button" className="btn btn-small" aria-pressed={revealed} onClick={() => connect.getState().reveal(!revealed)}>
            {revealed ? 'Hide key' : 'Reveal key'}
          </button>
        </p>
      )}
      <form
        className="row"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await connect.getState().setKey(draft)) setDraft('');
        }}
      >
        <Field label="New API key">
          <input type="password" autoComplete="new-password" value={draft} onChange={(e) => setDraft(e.target.value)} />
        </Field>
        <button type="submit" className="btn" disabled={!draft.trim()}>
          Set key
        </button>
        <button type="button" className="btn" onClick={() => void connect.getState().regenerate()}>
          Regenerate key
        </button>
        {keySet && (
          <button type="button" className="btn btn-danger" onClick={() => void connect.getState().setKey(null)}>
            Remove key
          </button>
        )}
      </form>
      {message && (
        <p role="status" className="ok-text">
          {message}
        </p>
      )}
      {error && (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
    </section>
  );
}
