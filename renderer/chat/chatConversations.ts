/** The conversation list: load, create, open, rename, delete; and the drafts being typed. */
import type { KeyValueStorage } from '../api/apiKey.js';
import { safeGet } from '../api/apiKey.js';
import { ACTIVE_CONVERSATION_KEY, errorText, type ChatDeps, type ConversationSummary, type GetChat, type SetChat } from './chatStore.js';
import { threadFromTurns } from './thread.js';

export interface ConversationActions {
  loadConversations(): Promise<void>;
  newConversation(): string;
  select(id: string): Promise<void>;
  /** Reloads a thread from the core (after a reconnect, or when it was captured elsewhere). */
  loadThread(id: string): Promise<void>;
  rename(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
  setDraft(id: string, text: string): void;
}

export const DRAFTS_KEY = 'clawloop.drafts';

export function loadDrafts(storage: KeyValueStorage | null): Record<string, string> {
  try {
    const v = JSON.parse(safeGet(storage, DRAFTS_KEY) ?? '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function persist(storage: KeyValueStorage | null, key: string, value: string | null): void {
  try {
    if (value === null) storage?.removeItem(key);
    else storage?.setItem(key, value);
  } catch {
    // storage full or blocked: the draft stays in memory
  }
}

export function conversationActions(set: SetChat, get: GetChat, deps: ChatDeps): ConversationActions {
  const { api, storage } = deps;
  const setActive = (id: string | null) => {
    set({ activeId: id });
    persist(storage, ACTIVE_CONVERSATION_KEY, id);
  };
  return {
    async loadConversations() {
      try {
        const { data } = await api.sessions();
        const remote: ConversationSummary[] = data
          .filter((s) => s.id !== 'unknown')
          .map((s) => ({ id: s.id, title: s.title, preview: s.preview, created_at: s.created_at, last_seen_at: s.last_seen_at }));
        const known = new Set(remote.map((c) => c.id));
        // Conversations started here but not sent yet stay listed (with their drafts).
        const local = get().conversations.filter((c) => c.local && !known.has(c.id));
        const { activeId, drafts } = get();
        if (activeId && !known.has(activeId) && !local.some((c) => c.id === activeId) && drafts[activeId]) {
          local.push({ id: activeId, title: null, preview: null, created_at: Date.now(), last_seen_at: null, local: true });
        }
        const all = [...local, ...remote].sort((a, b) => (b.last_seen_at ?? b.created_at ?? 0) - (a.last_seen_at ?? a.created_at ?? 0));
        set({ conversations: all, listError: null });
      } catch (err) {
        set({ listError: `Could not load the conversations: ${errorText(err)}` });
      }
    },

    newConversation() {
      const id = deps.newId();
      const c: ConversationSummary = { id, title: null, preview: null, created_at: Date.now(), last_seen_at: Date.now(), local: true };
      set((s) => ({ conversations: [c, ...s.conversations], threads: { ...s.threads, [id]: [] } }));
      setActive(id);
      return id;
    },

    async select(id) {
      setActive(id);
      if (get().threads[id]) return;
      await get().loadThread(id);
    },

    async loadThread(id) {
      const conv = get().conversations.find((c) => c.id === id);
      if (conv?.local) {
        set((s) => ({ threads: { ...s.threads, [id]: s.threads[id] ?? [] } }));
        return;
      }
      try {
        const detail = await api.session(id);
        const turns = { ...get().turns };
        for (const t of detail.turns) turns[t.id] = t;
        if (get().sending === id) return; // a stream owns this thread now
        set((s) => ({ threads: { ...s.threads, [id]: threadFromTurns(detail.turns) }, turns, threadErrors: omit(s.threadErrors, id) }));
      } catch (err) {
        set((s) => ({ threadErrors: { ...s.threadErrors, [id]: `Could not open this conversation: ${errorText(err)}` } }));
      }
    },

    async rename(id, title) {
      const clean = title.trim();
      if (!clean) return;
      const conv = get().conversations.find((c) => c.id === id);
      const before = conv?.title ?? null;
      const apply = (t: string | null) => set((s) => ({ conversations: s.conversations.map((c) => (c.id === id ? { ...c, title: t } : c)) }));
      apply(clean);
      if (conv?.local) return;
      try {
        await api.renameSession(id, clean);
        set({ listError: null });
      } catch (err) {
        apply(before);
        set({ listError: `Could not rename the conversation: ${errorText(err)}` });
      }
    },

    async remove(id) {
      const conv = get().conversations.find((c) => c.id === id);
      try {
        if (!conv?.local) await api.deleteSession(id);
      } catch (err) {
        set({ listError: `Could not delete the conversation: ${errorText(err)}` });
        return;
      }
      get().setDraft(id, '');
      set((s) => ({ conversations: s.conversations.filter((c) => c.id !== id), threads: omit(s.threads, id), listError: null }));
      if (get().activeId === id) setActive(get().conversations[0]?.id ?? null);
    },

    setDraft(id, text) {
      const drafts = { ...get().drafts };
      if (text) drafts[id] = text;
      else delete drafts[id];
      set({ drafts });
      persist(storage, DRAFTS_KEY, JSON.stringify(drafts));
    },
  };
}

export function omit<T>(rec: Record<string, T>, key: string): Record<string, T> {
  const out = { ...rec };
  delete out[key];
  return out;
}
