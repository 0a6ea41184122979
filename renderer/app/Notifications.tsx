/**
 * The notices of notificationsStore.ts, in a strip under the header on every screen (in the page's
 * flow, so they never cover a control): announced politely as they come, each with Dismiss, gone on
 * their own after 8 s (NOTICE_TTL_MS).
 */
import { useEffect } from 'react';
import { useStore } from 'zustand';
import { NOTICE_TTL_MS } from './notificationsStore.js';
import { useServices } from './servicesContext.js';

export function Notifications() {
  const { notifications } = useServices();
  const notices = useStore(notifications, (s) => s.notices);
  const oldest = notices[0];
  useEffect(() => {
    if (!oldest) return;
    const timer = setTimeout(() => notifications.getState().dismiss(oldest.id), Math.max(0, oldest.at + NOTICE_TTL_MS - Date.now()));
    return () => clearTimeout(timer);
  }, [notifications, oldest]);
  // The live list is always there, so that a screen reader announces what is added to it.
  return (
    <section className="notifications" aria-label="Notifications">
      <ol aria-live="polite" aria-relevant="additions">
        {notices.map((n) => (
          <li key={n.id} className={`notice notice-${n.tone}`}>
            <span>{n.text}</span>
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Dismiss: ${n.text}`}
              onClick={() => notifications.getState().dismiss(n.id)}
            >
              ×
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
