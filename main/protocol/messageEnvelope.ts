/**
 * OpenClaw wraps each inbound user message in an envelope before the model sees it:
 * "[Fri 2026-11-27 12:03 UTC] text" (and a "Runtime: …" line after the message that starts a run), or with the channel and sender first
 * ("[Signal Alice +1555 2026-01-18 00:19 PST] hello", "[… +2m 2026-01-18T05:19Z] …"; see OpenClaw's
 * docs/concepts/timezone.md). Lists and titles show the user's own words, so the envelope is taken off
 * for display; what is stored and trained on keeps it, as the model saw it.
 */

/** A bracket at the very start holding a date and a minute-precision time, then perhaps a zone. */
const ENVELOPE = /^\s*\[[^\]\n]{0,120}?\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2})?(?:Z|\s[^\]\n]{1,40})?\]\s*/;

/** The runtime line OpenClaw appends to the message that starts a run ("Runtime: agent=main | … | sessionId=…"). */
export const RUNTIME_LINE = /\n\nRuntime: agent=[^\n]*$/;

/** The user message OpenClaw adds after the person's with context of its own (not the person's words). */
export const INTERNAL_CONTEXT = '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>';

/** The message without a leading OpenClaw envelope or its trailing runtime line; other text is returned unchanged. */
export function stripEnvelope(text: string): string {
  const m = ENVELOPE.exec(text);
  const body = m && m[0].length < text.length ? text.slice(m[0].length) : text;
  return body.replace(RUNTIME_LINE, '');
}

/** The envelope at the start of a message ("[Fri 2026-11-27 12:03 UTC]"), or null when there is none. */
export function envelopeOf(text: string): string | null {
  const m = ENVELOPE.exec(text);
  return m && m[0].length < text.length ? m[0].trim() : null;
}
