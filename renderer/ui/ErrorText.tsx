/** An error shown where it happened, announced to screen readers; nothing when there is none. */
import type { ReactNode } from 'react';

export function ErrorText({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p className="error-text" role="alert">
      {children}
    </p>
  );
}
