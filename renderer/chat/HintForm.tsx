/** A typed hint for an answer: what would have been better. It trains as is (no judge needed). */
import { useState } from 'react';
import { useServices } from '../app/servicesContext.js';

export function HintForm({ turnId, initial, done }: { turnId: string; initial: string; done: () => void }) {
  const { chat } = useServices();
  const [text, setText] = useState(initial);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="hint-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        await chat.getState().submitHint(turnId, text);
        setBusy(false);
        if (!chat.getState().actionErrors[turnId]) done();
      }}
    >
      <label htmlFor={`hint-${turnId}`}>Hint</label>
      <textarea
        id={`hint-${turnId}`}
        rows={2}
        value={text}
        autoFocus
        placeholder="e.g. Answer in one sentence, without headings."
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && done()}
      />
      <div className="row">
        <button type="submit" className="btn btn-primary btn-small" disabled={busy || !text.trim()}>
          Submit hint
        </button>
        <button type="button" className="btn btn-small" onClick={done}>
          Cancel
        </button>
      </div>
    </form>
  );
}
