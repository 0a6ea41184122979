/**
 * One banner while the core is shutting down (it said so on the event stream), or down or
 * restarting, with Retry; it goes away by itself on recovery.
 */
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
  const stopping = useStore(services.core, (s) => s.stopping);
  const retryAt = useStore(services.core, (s) => s.stream?.retryAt ?? null);
  const secs = useSecondsUntil(reach === 'down' ? retryAt : null);
  if (stopping && reach !== 'down') return <StoppingBanner message={stopping.message} />;
  if (reach !== 'down') return null;
  return (
    <div className="banner" role="alert">
      <span>
        {stopping ? (
          <>
            <strong>ClawLoop has shut down.</strong> Start it again to go on; your drafts and conversations are kept.{' '}
          </>
        ) : (
          <>
            <strong>ClawLoop’s core is not answering.</strong> It may be restarting; your drafts and conversations are kept.{' '}
          </>
        )}
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

/** While the core finishes its last training step after Ctrl-C: what it does, and that it takes nothing new. */
function StoppingBanner({ message }: { message: string }) {
  return (
    <div className="banner" role="alert">
      <span>
        <strong>{message}…</strong> New messages, ratings and changes are refused until ClawLoop is started again; your drafts and
        conversations are kept.
      </span>
    </div>
  );
}
