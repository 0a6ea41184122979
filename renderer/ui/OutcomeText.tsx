/** What an action came to (done, or why not), announced as a status and coloured by its outcome. */
import type { ReactNode } from 'react';

export function OutcomeText({ ok, children }: { ok: boolean; children: ReactNode }) {
  return (
    <span role="status" className={ok ? 'ok-text' : 'error-text'}>
      {children}
    </span>
  );
}
