/**
 * The answers Regenerate wrote to one message, kept side by side in time: the thread shows one of
 * them (1/2, 2/2 with Previous and Next), and the one shown is the one the conversation goes on from.
 */
import type { AnswerItem, ChatItem } from './thread.js';

function alone(a: AnswerItem): AnswerItem {
  const { alternatives: _all, alternativeIndex: _at, ...rest } = a;
  return rest;
}

/** Whether an answer is worth keeping when another replaces it (one that failed or said nothing is not). */
function keepable(it: ChatItem | undefined): it is AnswerItem {
  return it?.kind === 'answer' && !it.side && !it.error && (!!it.content || !!it.toolCalls?.length);
}

/** `next`, the answer Regenerate writes in place of `replaced`, with the answers before it to go back to. */
export function regenerated(replaced: ChatItem | undefined, next: AnswerItem): AnswerItem {
  if (!keepable(replaced)) return next;
  const all = replaced.alternatives ? [...replaced.alternatives] : [alone(replaced)];
  all[replaced.alternativeIndex ?? 0] = alone(replaced);
  return { ...next, alternatives: [...all, alone(next)], alternativeIndex: all.length };
}

/** The same place in the thread showing answer `index` of its alternatives instead. */
export function showingAlternative(item: AnswerItem, index: number): AnswerItem {
  const all = item.alternatives;
  if (!all || index < 0 || index >= all.length) return item;
  const next = [...all];
  next[item.alternativeIndex ?? all.length - 1] = alone(item);
  return { ...next[index], alternatives: next, alternativeIndex: index };
}

/** An answer shown with the earlier answers to the same prompt (oldest first), itself the newest. */
export function withEarlier(item: AnswerItem, earlier: AnswerItem[]): AnswerItem {
  if (!earlier.length) return item;
  const all = [...earlier.map(alone), alone(item)];
  return { ...item, alternatives: all, alternativeIndex: all.length - 1 };
}
