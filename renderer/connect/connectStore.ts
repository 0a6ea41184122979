/**
 * Connect: what another program (OpenClaw, any OpenAI client) needs to use this core: the provider
 * entry, the base URL, the API key (set, regenerate, reveal), and a connection test.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';
import type { ApiKeyStore } from '../api/apiKey.js';
import type { SessionProof } from '../api/sessionProof.js';

export interface ConnectState {
  /** Whether the key this browser knows (ApiKeyStore: it set it, or got it from the app's URL) is shown. */
  revealed: boolean;
  keyMessage: string | null;
  keyError: string | null;
  testing: boolean;
  testResult: { ok: boolean; message: string } | null;

  reveal(on: boolean): void;
  setKey(key: string | null): Promise<boolean>;
  regenerate(): Promise<boolean>;
  test(): Promise<void>;
}

export type ConnectStore = StoreApi<ConnectState>;

export function createConnectStore(api: ApiClient, keys: ApiKeyStore, proof: SessionProof, onKeyChanged: () => void): ConnectStore {
  return createStore<ConnectState>()((set) => {
    async function change(body: { api_key: string | null } | { regenerate: true }, done: string): Promise<boolean> {
      try {
        const { api_key, session_proof } = await api.setApiKey(body);
        keys.set(api_key);
        proof.set(session_proof); // the core ended every browser session but this one's
        set({ keyMessage: done, keyError: null });
        onKeyChanged();
        return true;
      } catch (err) {
        set({ keyError: `The key was not changed: ${(err as Error).message}`, keyMessage: null });
        return false;
      }
    }
    return {
      revealed: false,
      keyMessage: null,
      keyError: null,
      testing: false,
      testResult: null,

      reveal(on) {
        set({ revealed: on });
      },

      setKey(key) {
        const clean = key === null ? null : key.trim();
        if (clean !== null && clean.length < 8) {
          set({ keyError: 'Use at least 8 characters, or Regenerate for a random key.' });
          return Promise.resolve(false);
        }
        return change(
          { api_key: clean },
          clean ? 'Key saved. Clients must send it now.' : 'Key removed until ClawLoop restarts: no key is needed now.',
        );
      },

      regenerate() {
        return change({ regenerate: true }, 'New key generated. Update your clients.');
      },

      async test() {
        set({ testing: true, testResult: null });
        const t0 = performance.now();
        try {
          const m = await api.models();
          const ms = Math.round(performance.now() - t0);
          set({ testResult: { ok: true, message: `Connected: ${m.data.map((x) => x.id).join(', ')} answered in ${ms} ms.` } });
        } catch (err) {
          set({ testResult: { ok: false, message: `Connection failed: ${(err as Error).message}` } });
        } finally {
          set({ testing: false });
        }
      },
    };
  });
}
