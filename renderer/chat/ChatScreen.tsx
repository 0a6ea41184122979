/** Chat: the conversation list beside the open conversation and the message box. */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { Composer } from './Composer.js';
import { ConversationList } from './ConversationList.js';
import { ConversationSettingsPanel, settingsSummary } from './ConversationSettingsPanel.js';
import { ThreadView } from './ThreadView.js';
import { useChatShortcuts } from './useChatShortcuts.js';
import { ToggleButton } from '../ui/ToggleButton.js';
import { usePersistentFlag } from '../ui/usePersistentFlag.js';
import './chat.css';

interface ChatBarProps {
  listOpen: boolean;
  setListOpen: (open: boolean) => void;
  settingsOpen: boolean;
  setSettingsOpen: (open: boolean) => void;
}

/** Above the conversation: show or hide the list, open its settings (summed up while closed). */
function ChatBar({ listOpen, setListOpen, settingsOpen, setSettingsOpen }: ChatBarProps) {
  const { chat } = useServices();
  const activeId = useStore(chat, (s) => s.activeId);
  const summary = useStore(chat, (s) => {
    const c = s.activeId ? s.conversationSettings[s.activeId] : undefined;
    return c ? settingsSummary(c.system, c.temperature) : '';
  });
  return (
    <div className="chat-bar">
      <ToggleButton open={listOpen} setOpen={setListOpen} controls="conversation-list">
        Conversations
      </ToggleButton>
      <ToggleButton open={settingsOpen} setOpen={setSettingsOpen} controls="conversation-settings" disabled={!activeId}>
        Conversation settings
      </ToggleButton>
      {summary && !settingsOpen && <span className="muted">{summary}</span>}
    </div>
  );
}

export function ChatScreen() {
  const { chat } = useServices();
  const activeId = useStore(chat, (s) => s.activeId);
  const error = useStore(chat, (s) => (s.activeId ? s.threadErrors[s.activeId] : undefined));
  useChatShortcuts(chat);
  const [listOpen, setListOpen] = usePersistentFlag('clawloop.conversations-open', true);
  const [settingsOpen, setSettingsOpen] = useState(false);

  useEffect(() => {
    const s = chat.getState();
    void s.loadConversations().then(() => {
      const now = chat.getState();
      // Open where the user left off: the open conversation, else the most recent, else a new one.
      const open = now.activeId ?? now.conversations[0]?.id ?? null;
      if (open) void now.select(open);
      else now.newConversation();
    });
  }, [chat]);

  return (
    <div className={listOpen ? 'chat' : 'chat list-collapsed'}>
      <h1 className="visually-hidden">Chat</h1>
      {listOpen && <ConversationList />}
      <section className="chat-main" aria-label="Conversation">
        <ChatBar listOpen={listOpen} setListOpen={setListOpen} settingsOpen={settingsOpen} setSettingsOpen={setSettingsOpen} />
        {settingsOpen && activeId && <ConversationSettingsPanel conversationId={activeId} />}
        {error && (
          <p className="error-text chat-error" role="alert">
            {error}
          </p>
        )}
        {activeId && <ThreadView conversationId={activeId} />}
        {activeId && <Composer conversationId={activeId} />}
      </section>
    </div>
  );
}
