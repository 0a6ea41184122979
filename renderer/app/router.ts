/**
 * The app's few routes, as real paths (/dashboard, /checkpoints, …) so the browser's back button
 * and bookmarks work; the core answers index.html for any of them.
 */
import { useSyncExternalStore } from 'react';

export const SCREENS = [
  { path: '/chat', label: 'Chat' },
  { path: '/dashboard', label: 'Dashboard' },
  { path: '/checkpoints', label: 'Checkpoints' },
  { path: '/data', label: 'Data' },
  { path: '/connect', label: 'Connect' },
  { path: '/settings', label: 'Settings' },
] as const;

export type ScreenPath = (typeof SCREENS)[number]['path'];

const listeners = new Set<() => void>();

function current(): ScreenPath {
  const p = window.location.pathname.replace(/\/+$/, '');
  return SCREENS.find((s) => s.path === p)?.path ?? '/chat';
}

export function navigate(path: ScreenPath): void {
  if (window.location.pathname === path) return;
  window.history.pushState(null, '', path + window.location.search);
  listeners.forEach((l) => l());
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  window.addEventListener('popstate', l);
  return () => {
    listeners.delete(l);
    window.removeEventListener('popstate', l);
  };
}

export function useRoute(): ScreenPath {
  return useSyncExternalStore(subscribe, current);
}
