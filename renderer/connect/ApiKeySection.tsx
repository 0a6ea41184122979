/**
 * The API key: whether one is set, set a new one, regenerate, remove, and reveal the key this
 * browser knows (the core never sends a key back, except to whoever just set it).
 */
import { useState, useSyncExternalStore } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { ErrorText } from '../ui/ErrorText.js';
import { Field } from '../ui/Field.js';

function keySetText(keySet: boolean | null): string {
  if (keySet === null) return 'Checking…';
  return keySet ? 'A key is set: every client (OpenClaw, this app) must send it.' : 'No key is set: any program on this machine can use the API.';
}

/** The key this browser sends (set here, typed into the key prompt, or taken from the app's URL), hidden until revealed. */
function KnownKey() {
  const { connect, keys } = useServices();
  const known = useSyncExternalStore(keys.subscribe, () => keys.get());
  const revealed = useStore(connect, (s) => s.revealed);
  if (!known) return null;
  return (
    <p className="row">
      <span>This browser’s key:</span>
      <code aria-label={revealed ? 'API key' : 'API key, hidden'}>{revealed ? known : '•'.repeat(Math.min(24, known.length))}</code>
      <button type="button" className="btn btn-small" aria-pressed={revealed} onClick={() => connect.getState().reveal(!revealed)}>
        {revealed ? 'Hide key' : 'Reveal key'}
      </button>
    </p>
  );
}

function KeyForm({ keySet }: { keySet: boolean | null }) {
  const { connect } = useServices();
  const [draft, setDraft] = useState('');
  return (
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
  );
}

export function ApiKeySection({ keySet }: { keySet: boolean | null }) {
  const { connect } = useServices();
  const message = useStore(connect, (s) => s.keyMessage);
  const error = useStore(connect, (s) => s.keyError);
  return (
    <section className="card" aria-labelledby="key-title-connect">
      <h2 id="key-title-connect">API key</h2>
      <p>{keySetText(keySet)}</p>
      <KnownKey />
      <KeyForm keySet={keySet} />
      {message && (
        <p role="status" className="ok-text">
          {message}
        </p>
      )}
      <ErrorText>{error}</ErrorText>
    </section>
  );
}
