/** One banner while the core is down or restarting, with Retry; it goes away by itself on recovery. */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from './servicesContext.js';

function useSecondsUntil(at: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === null) return;
    const id = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(id);
  }, [at]);
  return at === null ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export function CoreBanner() {
  const services = useServices();
  const reach = useStore(services.core, (s) => s.reachability);
  const reason = useStore(services.core, (s) => s.downReason);
  const retryAt = useStore(services.core, (s) => s.stream?.retryAt ?? null);
  const secs = useSecondsUntil(reach === 'down' ? retryAt : null);
  if (reach !== 'down') return null;
  return (
    <div className="banner" role="alert">
      <span>
        <strong>ClawLoop’s core is not answering.</strong> It may be restarting; your drafts and conversations are kept.{' '}
        <span className="muted">
          {secs === null || secs === 0 ? 'Reconnecting…' : `Trying again in ${secs} s.`} ({reason})
        </span>
      </span>
      <button type="button" className="btn" onClick={() => services.retry()}>
        Retry
      </button>
    </div>
  );
}
