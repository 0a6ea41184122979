import type { StoredTurn } from '../store/turnStore.js';
import { ApiError } from './apiError.js';

/**
 * Tokens kept free for the hint marker and the chat template's wrapping of it (the teacher appends
 * "\n\n[user's hint / instruction]\n" and the hint to the last user message, or adds a message).
 */
const HINT_WRAPPING_TOKENS = 32;

/**
 * The longest hint (in UTF-8 bytes) the OPD teacher is sure to read with this turn: the model's
 * context less the turn's prompt and answer and the hint's wrapping. A byte-level tokenizer makes
 * at most one token per byte, so a hint within this many bytes always fits.
 */
export function maxHintBytes(turn: StoredTurn, contextLength: number): number {
  const room = contextLength - turn.promptIds.length - turn.responseIds.length - HINT_WRAPPING_TOKENS;
  return Math.max(0, room); // the request schema also caps a hint at 4,000 characters
}

/** A 400 when the hint is longer than {@link maxHintBytes}: one the teacher might not read would train nothing. */
export function checkHintFits(hint: string, turn: StoredTurn, contextLength: number): void {
  const bytes = Buffer.byteLength(hint, 'utf8');
  const max = maxHintBytes(turn, contextLength);
  if (bytes <= max) return;
  throw new ApiError(
    400,
    `the hint is ${bytes} bytes; with this turn (${turn.promptIds.length} prompt and ${turn.responseIds.length} answer tokens) the model's context of ${contextLength} tokens leaves room for a hint of at most ${max} bytes (as many plain ASCII characters): shorten it`,
    'invalid_request_error',
    'hint_too_long',
    'hint',
  );
}
