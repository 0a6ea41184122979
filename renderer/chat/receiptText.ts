/**
 * An answer's receipt in words (Receipt.tsx shows it): queued, judged (score, the hint and whose
 * it is, being trained on), trained in step N (and, when not live, why: held back by the
 * competence gate, or a rollback), live in vK, or why it will not be trained.
 */
import type { Receipt as ReceiptView } from '../api/contract.js';
import { quote, signed } from '../ui/format.js';

function hintText(r: ReceiptView): string {
  if (!r.hint) return '';
  const quoted = quote(r.hint, 80);
  return r.hint_source === 'judge' ? ` · the judge's hint ${quoted}` : ` · your hint ${quoted}`;
}

/** Checkpoint ids ("step-000004") in the core's reasons, as people read them ("step 4"). */
const readable = (reason: string) => reason.replace(/\bstep-0*(\d+)\b/g, 'step $1');

/**
 * Why a trained step is not live: the competence gate's verdict ("held back by the competence gate:
 * … points below …") or a rollback.
 */
function notLiveText(r: ReceiptView): string {
  const reason = readable(r.reason ?? 'what this step learned is not in the live version');
  return /^held back\b/.test(reason) ? `, ${reason}; the live version is unchanged` : ` · not live: ${reason}`;
}

/** The receipt in words; `secondsLeft`: how long a hint may still join the rating (null: no wait). */
export function receiptText(r: ReceiptView, secondsLeft: number | null = null): string {
  const hint = hintText(r);
  switch (r.stage) {
    case 'queued':
      return secondsLeft !== null
        ? `Rated · a hint added in the next ${secondsLeft} s trains together with this rating`
        : 'Feedback queued for the judge';
    case 'judged': {
      const review = r.hint_source === 'judge' && secondsLeft !== null ? ` · trains in ${secondsLeft} s unless you reject it` : '';
      // A step took it: its feedback (the hint too, which joined the rating) is what the step trains on.
      const training = r.feedback_open === false ? (r.hint ? ' · being trained on now, hint included' : ' · being trained on now') : '';
      return `Judged: score ${signed(r.score, 0)}${hint}${review}${training}`;
    }
    case 'trained':
      return `Judged ${signed(r.score, 0)}${hint} · trained in step ${r.step ?? '?'}${notLiveText(r)}`;
    case 'live':
      // The first version that served it stays put; the version serving now moves on with each step.
      return r.first_version != null && r.first_version !== r.version
        ? `Trained in step ${r.step ?? '?'} · live since v${r.first_version} (now v${r.version ?? '?'})`
        : `Trained in step ${r.step ?? '?'} · live in v${r.version ?? '?'}`;
    case 'not_trained':
      return `Not trained: ${r.reason ?? 'no reason given'}`;
    default:
      return '';
  }
}
