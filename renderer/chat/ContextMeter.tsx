/**
 * Under the message box: how much of the model's context the conversation and the draft fill, and a
 * warning, before sending, when the message would not fit (or leave little room for the answer).
 */
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { contextUse, NEAR_FULL } from './contextUse.js';

export function ContextMeter({ conversationId }: { conversationId: string }) {
  const { chat, core } = useServices();
  const contextLength = useStore(core, (s) => s.info?.model.context_length ?? null);
  const items = useStore(chat, (s) => s.threads[conversationId]);
  const turns = useStore(chat, (s) => s.turns);
  const draft = useStore(chat, (s) => s.drafts[conversationId] ?? '');
  if (!contextLength) return null;
  const use = contextUse(items ?? [], turns, draft, contextLength);
  const n = (x: number) => x.toLocaleString('en-US');
  return (
    <div className="context-meter">
      <meter
        min={0}
        max={use.contextLength}
        value={Math.min(use.tokens, use.contextLength)}
        high={NEAR_FULL * use.contextLength}
        optimum={0}
        aria-label="Context used"
      />
      <span className="muted">
        about {n(use.tokens)} of {n(use.contextLength)} tokens
      </span>
      {use.level !== 'ok' && (
        <p role="alert" className={use.level === 'over' ? 'error-text' : 'warn-text'}>
          {use.level === 'over'
            ? `This won't fit: the model reads at most ${n(use.contextLength)} tokens, and the conversation with this message is about ${n(use.tokens)}. Shorten the message or start a new conversation.`
            : `Little room is left for the answer: the conversation with this message fills about ${Math.round((100 * use.tokens) / use.contextLength)} % of the model's ${n(use.contextLength)} tokens.`}
        </p>
      )}
    </div>
  );
}
