/** A button that copies a text and says so for a moment ("Copied"), also to screen readers. */
import { useEffect, useState } from 'react';
import { copyText } from './copyText.js';

/** `label` names it for screen readers; `shown` is its visible text while idle (default "Copy", where the context says what). */
export function CopyButton({ text, label, shown = 'Copy' }: { text: string; label: string; shown?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className="btn btn-small"
      aria-label={label}
      onClick={async () => setState((await copyText(text)) ? 'copied' : 'failed')}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : shown}
      <span className="visually-hidden" aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy' : ''}
      </span>
    </button>
  );
}
