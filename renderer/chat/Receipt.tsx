/**
 * Where an answer's feedback is on its way into the model: queued (a rating waits a moment for its
 * hint) → judged (score, the hint and whose it is) → trained in step N → live in vK, or why it will
 * not be trained. The words come from the core's receipt; the status element holds only the current
 * stage, so it is announced as it moves.
 */
import { useEffect, useState } from 'react';
import type { Receipt as ReceiptView, TurnFeedback } from '../api/contract.js';
import { receiptText } from './receiptText.js';

// Data's turn detail words a receipt the same way.
export { receiptText };

const ORDER = ['queued', 'judged', 'trained', 'live'] as const;

/** Whole seconds until `until` (ms), ticking each second; null when there is no such time or it passed. */
function useSecondsLeft(until: number | null | undefined): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!until) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until]);
  if (!until) return null;
  const left = Math.ceil((until - now) / 1000);
  return left > 0 ? left : null;
}

/** The receipt, and the judge's hint's Reject while it can still be rejected. */
export function Receipt({
  receipt,
  feedback,
  onRejectJudgeHint,
}: {
  receipt: ReceiptView | undefined;
  feedback: TurnFeedback | null;
  onRejectJudgeHint?: () => void;
}) {
  const secondsLeft = useSecondsLeft(receipt?.hint_until);
  if (!receipt || receipt.stage === 'none') {
    if (!feedback || (!feedback.rating && !feedback.hint)) return null;
    return (
      <div role="status" className="receipt">
        Feedback sent
      </div>
    );
  }
  const reached = ORDER.indexOf(receipt.stage as (typeof ORDER)[number]);
  return (
    <div className={`receipt receipt-${receipt.stage}`}>
      {receipt.stage !== 'not_trained' && (
        <ol className="receipt-steps" aria-hidden="true">
          {ORDER.map((s, i) => (
            <li key={s} className={i <= reached ? 'done' : undefined} />
          ))}
        </ol>
      )}
      <span role="status">
        {receiptText(receipt, secondsLeft)}
        {feedback?.reject_judge_hint && receipt.stage !== 'not_trained' ? " · you rejected the judge's hint" : ''}
      </span>
      {receipt.hint_source === 'judge' && receipt.feedback_open && onRejectJudgeHint && (
        <button type="button" className="btn btn-small" onClick={onRejectJudgeHint}>
          Reject the judge’s hint
        </button>
      )}
    </div>
  );
}
