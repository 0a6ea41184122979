/**
 * The proof of this browser's session with the core (docs/security.md). The HttpOnly cookie holds
 * a session token, which browsers also send to every other port of the host; the core accepts it
 * only with this proof in the `x-clawloop-proof` header. The proof lives in localStorage, which is
 * the page's origin's alone (scheme, host and port), so a server on another port never sees it.
 * The sign-in link's page writes it there (main/server/routes/authRoutes.ts); typing the key or
 * changing it stores the proof the core answers.
 */
import { safeGet, type KeyValueStorage } from './apiKey.js';

export const PROOF_STORAGE_KEY = 'clawloop.sessionProof';
export const PROOF_HEADER = 'x-clawloop-proof';

export class SessionProof {
  constructor(private readonly storage: KeyValueStorage | null) {}

  get(): string | null {
    return safeGet(this.storage, PROOF_STORAGE_KEY);
  }

  /** Keeps the proof the core answered (null: the core has no key, nothing to keep). */
  set(proof: string | null): void {
    try {
      if (proof) this.storage?.setItem(PROOF_STORAGE_KEY, proof);
      else this.storage?.removeItem(PROOF_STORAGE_KEY);
    } catch {
      // storage blocked: this browser signs in again at its next visit
    }
  }
}
