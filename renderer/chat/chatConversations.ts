/** The conversation list: load, create, open, rename, delete; and the drafts being typed. */
import type { KeyValueStorage } from '../api/apiKey.js';
import { safeGet } from '../api/apiKey.js';
import type { ChatContext, ChatData, ChatDeps, ConversationSummary, GetChat, SetChat } from './chatStore.js';
import { ApiRequestError } from '../api/transport.js';
import { errorText } from './errorText.js';
import { isCompareSession } from '../ui/compareSessions.js';
import { threadFromTurns } from './threadFromTurns.js';
import { unsentConversations, withUnsent } from './unsentMessages.js';

/** Where the open conversation's id is kept, so a reload opens it again. */
export const ACTIVE_CONVERSATION_KEY = 'clawloop.activeConversation';

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
  const c: ChatContext = { set, get, deps };
  return {
    loadConversations: () => loadConversations(c),
    newConversation: () => newConversation(c),
    select: (id) => select(c, id),
    loadThread: (id) => loadThread(c, id),
    rename: (id, title) => rename(c, id, title),
    remove: (id) => remove(c, id),
    setDraft: (id, text) => setDraft(c, id, text),
  };
}

function setActive({ set, deps }: ChatContext, id: string | null): void {
  set({ activeId: id });
  persist(deps.storage, ACTIVE_CONVERSATION_KEY, id);
}

/**
 * The core's conversations, newest first, with those started here but not sent yet (they keep
 * their drafts), including the open one when only its draft remembers it.
 */
function mergeConversations(remote: ConversationSummary[], state: ChatData): ConversationSummary[] {
  const known = new Set(remote.map((c) => c.id));
  const local = state.conversations.filter((c) => c.local && !known.has(c.id));
  // A first message sent while the core was away: the core does not know the conversation yet.
  for (const u of unsentConversations(state.unsent, known)) {
    if (local.some((c) => c.id === u.id)) continue;
    const listed = state.conversations.find((c) => c.id === u.id);
    local.push(listed ? { ...listed, local: true } : u);
  }
  const { activeId, drafts } = state;
  if (activeId && !known.has(activeId) && !local.some((c) => c.id === activeId) && drafts[activeId]) {
    local.push({ id: activeId, title: null, preview: null, created_at: Date.now(), last_seen_at: null, local: true });
  }
  return [...local, ...remote].sort((a, b) => (b.last_seen_at ?? b.created_at ?? 0) - (a.last_seen_at ?? a.created_at ?? 0));
}

/** The core's conversations a page at a time, newest first: the list shows the first page at once and grows as the rest arrive. */
async function loadConversations({ set, get, deps }: ChatContext): Promise<void> {
  try {
    const remote: ConversationSummary[] = [];
    for (let cursor: string | undefined; ;) {
      const page = await deps.api.sessionsPage(cursor ? { cursor } : {});
      for (const s of page.data) {
        // Compare's one-turn sessions are listed under Checkpoints, not here.
        if (isCompareSession(s.id)) continue;
        remote.push({ id: s.id, title: s.title, preview: s.preview, created_at: s.created_at, last_seen_at: s.last_seen_at });
      }
      set({ conversations: mergeConversations(remote, get()), listError: null });
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  } catch (err) {
    set({ listError: `Could not load the conversations: ${errorText(err)}` });
  }
}

function newConversation(c: ChatContext): string {
  const id = c.deps.newId();
  const conv: ConversationSummary = { id, title: null, preview: null, created_at: Date.now(), last_seen_at: Date.now(), local: true };
  c.set((s) => ({ conversations: [conv, ...s.conversations], threads: { ...s.threads, [id]: [] } }));
  setActive(c, id);
  return id;
}

async function select(c: ChatContext, id: string): Promise<void> {
  setActive(c, id);
  if (c.get().threads[id]) return;
  await c.get().loadThread(id);
}

async function loadThread(c: ChatContext, id: string): Promise<void> {
  const { set, get, deps } = c;
  const conv = get().conversations.find((x) => x.id === id);
  if (conv?.local) {
    set((s) => ({ threads: { ...s.threads, [id]: s.threads[id] ?? withUnsent(c, id, []) } }));
    return;
  }
  try {
    const detail = await deps.api.session(id);
    const turns = { ...get().turns };
    for (const t of detail.turns) turns[t.id] = t;
    if (get().sending === id) return; // a stream owns this thread now
    const thread = withUnsent(c, id, threadFromTurns(detail.turns));
    set((s) => ({ threads: { ...s.threads, [id]: thread }, turns, threadErrors: omit(s.threadErrors, id) }));
  } catch (err) {
    if (isNotFound(err)) return openAsNew(c, id);
    set((s) => ({ threadErrors: { ...s.threadErrors, [id]: `Could not open this conversation: ${errorText(err)}` } }));
  }
}

const isNotFound = (err: unknown) => err instanceof ApiRequestError && err.status === 404;

/**
 * A conversation the core has no turn of: one opened and not sent yet before a reload, or one
 * deleted elsewhere. It opens empty, as a new one (its drafts and unsent message kept), not as an error.
 */
function openAsNew(c: ChatContext, id: string): void {
  c.set((s) => ({
    threads: { ...s.threads, [id]: s.threads[id] ?? withUnsent(c, id, []) },
    threadErrors: omit(s.threadErrors, id),
    conversations: s.conversations.some((x) => x.id === id)
      ? s.conversations.map((x) => (x.id === id ? { ...x, local: true } : x))
      : [{ id, title: null, preview: null, created_at: Date.now(), last_seen_at: Date.now(), local: true }, ...s.conversations],
  }));
}

async function rename({ set, get, deps }: ChatContext, id: string, title: string): Promise<void> {
  const clean = title.trim();
  if (!clean) return;
  const conv = get().conversations.find((c) => c.id === id);
  const before = conv?.title ?? null;
  const apply = (t: string | null) => set((s) => ({ conversations: s.conversations.map((c) => (c.id === id ? { ...c, title: t } : c)) }));
  apply(clean);
  if (conv?.local) return;
  try {
    await deps.api.renameSession(id, clean);
    set({ listError: null });
  } catch (err) {
    apply(before);
    set({ listError: `Could not rename the conversation: ${errorText(err)}` });
  }
}

async function remove(c: ChatContext, id: string): Promise<void> {
  const { set, get, deps } = c;
  const conv = get().conversations.find((x) => x.id === id);
  try {
    if (!conv?.local) await deps.api.deleteSession(id);
  } catch (err) {
    set({ listError: `Could not delete the conversation: ${errorText(err)}` });
    return;
  }
  get().setDraft(id, '');
  set((s) => ({ conversations: s.conversations.filter((x) => x.id !== id), threads: omit(s.threads, id), listError: null }));
  if (get().activeId === id) setActive(c, get().conversations[0]?.id ?? null);
}

function setDraft({ set, get, deps }: ChatContext, id: string, text: string): void {
  const drafts = { ...get().drafts };
  if (text) drafts[id] = text;
  else delete drafts[id];
  // A note on why the last message came back stays until the box changes.
  set((s) => ({ drafts, notSent: s.notSent[id] ? omit(s.notSent, id) : s.notSent }));
  persist(deps.storage, DRAFTS_KEY, JSON.stringify(drafts));
}

export function omit<T>(rec: Record<string, T>, key: string): Record<string, T> {
  const out = { ...rec };
  delete out[key];
  return out;
}
