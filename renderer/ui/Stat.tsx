/** One label–value pair of a `<dl className="stats">` list; `wide` spans the whole row. */
import type { ReactNode } from 'react';

export function Stat({ label, wide, children }: { label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={wide ? 'wide' : undefined}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
