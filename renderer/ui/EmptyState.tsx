/** What an empty screen or list will show, and what to do to fill it (issue 42: an empty state on every screen). */
import type { ReactNode } from 'react';

export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-state-title">{title}</p>
      <p className="muted">{children}</p>
    </div>
  );
}
