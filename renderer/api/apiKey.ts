/**
 * The API key the app sends, when it has one. A browser is signed in by the core's HttpOnly cookie
 * (the one-time link `clawloop serve` prints, or the key typed into the prompt and exchanged for
 * it), so the page holds no key at all; the desktop app gets the key over its preload and keeps it
 * in memory. A `#key=` fragment (links of older versions) is no longer accepted: it put the key in
 * the browser's history. It is removed from the address bar, unused, and the app asks for the key.
 */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export const API_KEY_STORAGE_KEY = 'clawloop.apiKey';

/** The hash without a `#key=…` of an old link ('' when nothing is left), or null when it has none. */
export function dropKeyFragment(hash: string): string | null {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!h) return null;
  const params = new URLSearchParams(h);
  if (!params.has('key')) return null;
  params.delete('key');
  const rest = params.toString();
  return rest ? `#${rest}` : '';
}

/** The one owner of the key: the transport reads it for each request, the Connect screen shows it. */
export class ApiKeyStore {
  private key: string | null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly storage: KeyValueStorage | null) {
    this.key = safeGet(storage, API_KEY_STORAGE_KEY);
  }

  get(): string | null {
    return this.key;
  }

  /** Remembers a key (null forgets it). */
  set(key: string | null): void {
    this.key = key && key.trim() ? key.trim() : null;
    try {
      if (this.key) this.storage?.setItem(API_KEY_STORAGE_KEY, this.key);
      else this.storage?.removeItem(API_KEY_STORAGE_KEY);
    } catch {
      // storage full or blocked: the key still works for this page
    }
    this.listeners.forEach((l) => l());
  }

  /** Calls `listener` after every change of the key; returns how to stop (React's useSyncExternalStore). */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };
}

/** Removes a key that an older version of the app kept in storage. */
export function forgetStoredKey(storage: KeyValueStorage | null): void {
  try {
    storage?.removeItem(API_KEY_STORAGE_KEY);
  } catch {
    // storage blocked: nothing was kept there either
  }
}

export function safeGet(storage: KeyValueStorage | null, key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}
