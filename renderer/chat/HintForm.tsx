/** A typed hint for an answer: what would have been better. It trains as is (no judge needed). */
import { useEffect, useRef, useState } from 'react';
import { useServices } from '../app/servicesContext.js';

export function HintForm({ turnId, initial, done }: { turnId: string; initial: string; done: () => void }) {
  const { chat } = useServices();
  const [text, setText] = useState(initial);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // Opened below the fold (a long answer, a small window): brought into view.
  useEffect(() => {
    // A block, not an expression: Chromium's scrollIntoView returns a promise, which React would take for a cleanup.
    form.current?.scrollIntoView({ block: 'nearest' });
  }, []);
  return (
    <form
      ref={form}
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
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault(); // closes the form, and does not also stop an answer being written
            done();
          }
          // Ctrl+Enter (⌘+Enter) sends the hint, as the message box's shortcuts list says.
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
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
