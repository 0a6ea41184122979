/** Asks for the API key when the core answers 401 (this browser is not signed in); a key that works is exchanged for the sign-in cookie. */
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { ErrorText } from '../ui/ErrorText.js';
import { useServices } from './servicesContext.js';

export function KeyPrompt() {
  const { core } = useServices();
  const needsKey = useStore(core, (s) => s.needsKey);
  const message = useStore(core, (s) => s.keyMessage);
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (needsKey && !d.open) d.showModal();
    if (!needsKey && d.open) d.close();
  }, [needsKey]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="key-title" onCancel={(e) => e.preventDefault()}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          await core.getState().submitKey(key);
          setBusy(false);
        }}
      >
        <h2 id="key-title">This ClawLoop needs its API key</h2>
        {/* The data folder cannot be asked for before the key is given: the wording names how to find it, not a guess. */}
        <p className="muted">
          Open the sign-in link <code>clawloop serve</code> printed (each link works once; every start prints a new one), or enter the key.
          Its start-up log says where the key is (“the API key is in …”): the <code>api-key</code> file in the data folder it was started
          with (<code>--data-dir</code>, else <code>$CLAWLOOP_HOME</code>, else <code>~/.clawloop</code>), unless a key was given with{' '}
          <code>--api-key</code> or set in Connect.
        </p>
        <div className="field">
          <label htmlFor="api-key-input">API key</label>
          <input id="api-key-input" type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} required />
        </div>
        <ErrorText>{message}</ErrorText>
        <div className="dialog-actions">
          <button type="submit" className="btn btn-primary" disabled={busy || !key.trim()}>
            Use key
          </button>
        </div>
      </form>
    </dialog>
  );
}
