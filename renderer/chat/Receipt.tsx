/**
 * Where an answer's feedback is on its way into the model: queued → judged (score, the hint) →
 * trained in step N → live in vK, or why it will not be trained. The words come from the core's
 * receipt; the status element holds only the current stage, so it is announced as it moves.
 */
import type { Receipt as ReceiptView, TurnFeedback } from '../api/contract.js';
import { signed } from '../ui/format.js';

const ORDER = ['queued', 'judged', 'trained', 'live'] as const;

export function receiptText(r: ReceiptView): string {
  const hint = r.hint ? ` · hint “${r.hint.length > 80 ? `${r.hint.slice(0, 77)}…` : r.hint}”` : '';
  switch (r.stage) {
    case 'queued':
      return 'Feedback queued for the judge';
    case 'judged':
      return `Judged: score ${signed(r.score, 0)}${hint}`;
    case 'trained':
      return `Judged ${signed(r.score, 0)}${hint} · trained in step ${r.step ?? '?'}`;
    case 'live':
      return `Trained in step ${r.step ?? '?'} · live in v${r.version ?? '?'}`;
    case 'not_trained':
      return `Not trained: ${r.reason ?? 'no reason given'}`;
    default:
      return '';
  }
}

export function Receipt({ receipt, feedback }: { receipt: ReceiptView | undefined; feedback: TurnFeedback | null }) {
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
      <span role="status">{receiptText(receipt)}</span>
    </div>
  );
}
