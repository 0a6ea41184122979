/**
 * A native <dialog> shown modal while the component is mounted (focus is trapped, Escape fires
 * `cancel`), and closed when it unmounts.
 */
import { useEffect, useRef, type RefObject } from 'react';

export function useModalDialog(): RefObject<HTMLDialogElement | null> {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return ref;
}
