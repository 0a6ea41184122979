/**
 * The Chat screen's keyboard shortcuts (listed under the message box, SHORTCUTS): Esc stops an answer
 * being written, Ctrl+Shift+O starts a new conversation, Ctrl+K searches the conversations.
 */
import { useEffect } from 'react';
import type { ChatStore } from './chatStore.js';

/** What the message box lists, in the order a person needs them. */
export const SHORTCUTS: ReadonlyArray<[keys: string, what: string]> = [
  ['Enter', 'send'],
  ['Shift+Enter', 'new line'],
  ['Esc', 'stop the answer'],
  ['Ctrl+Shift+O', 'new conversation'],
  ['Ctrl+K', 'search conversations'],
  ['Ctrl+Enter', 'submit a hint'],
];

export const COMPOSER_ID = 'message-input';
export const SEARCH_ID = 'conversation-search';

export function focusById(id: string): void {
  // After React has drawn what the action changed (a new conversation's message box).
  requestAnimationFrame(() => document.getElementById(id)?.focus());
}

export function useChatShortcuts(chat: ChatStore): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const mod = e.ctrlKey || e.metaKey;
      // Esc closes a dialog or a form first (they handle it themselves); otherwise it stops the answer.
      if (e.key === 'Escape' && chat.getState().sending && !document.querySelector('dialog[open]')) {
        chat.getState().stop();
        e.preventDefault();
      } else if (mod && e.shiftKey && e.key.toLowerCase() === 'o') {
        e.preventDefault();
        if (chat.getState().sending) return;
        chat.getState().newConversation();
        focusById(COMPOSER_ID);
      } else if (mod && !e.shiftKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        focusById(SEARCH_ID);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [chat]);
}
