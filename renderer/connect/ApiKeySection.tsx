/**
 * The API key: whether one is set, set a new one, regenerate, remove, and reveal the key this
 * browser knows (the core never sends a key back, except to whoever just set it).
 */
import { useState, useSyncExternalStore } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { ConfirmDialog } from '../ui/ConfirmDialog.js';
import { ErrorText } from '../ui/ErrorText.js';
import { Field } from '../ui/Field.js';

function keySetText(keySet: boolean | null): string {
  if (keySet === null) return 'Checking…';
  return keySet
    ? 'A key is set: every client (OpenClaw, this app) must send it.'
    : 'No key is set: any program on this machine can use the API. Unless ClawLoop was started with --no-auth, its next start takes the data folder’s key again.';
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

/** Regenerate and Remove change what every client must send: each asks first, saying so. */
function KeyChangeConfirm({ change, close }: { change: 'regenerate' | 'remove'; close: () => void }) {
  const { connect } = useServices();
  const regenerate = change === 'regenerate';
  return (
    <ConfirmDialog
      title={regenerate ? 'Regenerate the API key?' : 'Remove the API key?'}
      confirmLabel={regenerate ? 'Regenerate key' : 'Remove key'}
      onCancel={close}
      onConfirm={() => {
        void (regenerate ? connect.getState().regenerate() : connect.getState().setKey(null));
        close();
      }}
    >
      <p>
        {regenerate
          ? 'A new key replaces the current one at once. Every client that sends the old key (OpenClaw, other browsers) is refused until you give it the new one; this app switches to the new key itself.'
          : 'Without a key, any program on this machine can use the API and see your conversations. This lasts until ClawLoop restarts: the next start takes the data folder’s own key again (start it with --no-auth to run without one). Clients that send the old key keep working.'}
      </p>
    </ConfirmDialog>
  );
}

function KeyForm({ keySet }: { keySet: boolean | null }) {
  const { connect } = useServices();
  const [draft, setDraft] = useState('');
  const [confirming, setConfirming] = useState<'regenerate' | 'remove' | null>(null);
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
      <button type="button" className="btn" onClick={() => setConfirming('regenerate')}>
        Regenerate key
      </button>
      {keySet && (
        <button type="button" className="btn btn-danger" onClick={() => setConfirming('remove')}>
          Remove key
        </button>
      )}
      {confirming && <KeyChangeConfirm change={confirming} close={() => setConfirming(null)} />}
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
