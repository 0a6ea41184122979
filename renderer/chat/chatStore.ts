/**
 * The chat screen's state: the conversation list, each open thread, what is being typed (drafts,
 * kept in storage so a reload or a crash never loses them), the answer streaming now, and the
 * core's view of every answer shown (its feedback and receipt). Actions live in three slices:
 * conversations, sending, and feedback.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';
import type { KeyValueStorage } from '../api/apiKey.js';
import type { ClawLoopEvent } from '../api/events.js';
import type { TurnView } from '../api/contract.js';
import type { ChatItem } from './thread.js';
import { ACTIVE_CONVERSATION_KEY, conversationActions, loadDrafts, type ConversationActions } from './chatConversations.js';
import { sendingActions, type SendingActions } from './chatSending.js';
import { feedbackActions, type FeedbackActions } from './chatFeedback.js';
import {
  conversationSettingsActions,
  loadConversationSettings,
  type ConversationSettings,
  type ConversationSettingsActions,
} from './conversationSettings.js';
import { loadUnsent } from './unsentMessages.js';

export interface ConversationSummary {
  id: string;
  title: string | null;
  /** The first message, shortened (the core's), shown while there is no title. */
  preview: string | null;
  created_at: number | null;
  last_seen_at: number | null;
  /** Created in this app and not sent yet: the core does not know it. */
  local?: boolean;
}

export interface ChatData {
  conversations: ConversationSummary[];
  listError: string | null;
  activeId: string | null;
  threads: Record<string, ChatItem[]>;
  threadErrors: Record<string, string>;
  drafts: Record<string, string>;
  /** The conversation whose answer is streaming, if any. */
  sending: string | null;
  /** The core's view of each answer shown, by turn id (feedback, receipt). */
  turns: Record<string, TurnView>;
  /** The error of the last action on an answer (by turn id or item key), shown next to it. */
  actionErrors: Record<string, string>;
  /** Per conversation, why the last message sent came back to the box (shown next to it until the box changes). */
  notSent: Record<string, string>;
  /** Per conversation, a message sent while the core was not answering (kept in storage; see unsentMessages.ts). */
  unsent: Record<string, string>;
  /** Per conversation, its system prompt and temperature (kept in storage; see conversationSettings.ts). */
  conversationSettings: Record<string, ConversationSettings>;
}

export type ChatState = ChatData & ConversationActions & SendingActions & FeedbackActions & ConversationSettingsActions;

export interface ChatDeps {
  api: ApiClient;
  /** Where drafts and the open conversation are kept (localStorage in the app); null keeps nothing. */
  storage: KeyValueStorage | null;
  /** Runs `fn` before the next paint (requestAnimationFrame in the app), to batch streamed tokens. */
  frame: (fn: () => void) => void;
  /** A new conversation id. */
  newId: () => string;
  /** Called after a rollback made another version live (the header and other screens refetch). */
  onLiveChanged?: () => void;
}

export type ChatStore = StoreApi<ChatState>;
export type SetChat = StoreApi<ChatState>['setState'];
export type GetChat = StoreApi<ChatState>['getState'];

/** What each of the store's actions works with. */
export interface ChatContext {
  set: SetChat;
  get: GetChat;
  deps: ChatDeps;
}

export function createChatStore(deps: ChatDeps): ChatStore {
  return createStore<ChatState>()((set, get) => ({
    conversations: [],
    listError: null,
    activeId: deps.storage?.getItem(ACTIVE_CONVERSATION_KEY) ?? null,
    threads: {},
    threadErrors: {},
    drafts: loadDrafts(deps.storage),
    sending: null,
    turns: {},
    actionErrors: {},
    notSent: {},
    unsent: loadUnsent(deps.storage),
    conversationSettings: loadConversationSettings(deps.storage),
    ...conversationActions(set, get, deps),
    ...sendingActions(set, get, deps),
    ...feedbackActions(set, get, deps),
    ...conversationSettingsActions({ set, get }, deps.storage),
  }));
}

/** Routes a core event to the chat store (receipts move, new turns appear). */
export function chatOnEvent(store: ChatStore, ev: ClawLoopEvent): void {
  store.getState().onEvent(ev);
}
