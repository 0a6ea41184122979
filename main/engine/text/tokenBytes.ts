import type { TextTokenizer } from './tokenizer.js';

/** GPT-2's byte-level alphabet: the printable character that stands for each byte value. */
function byteDecoder(): Map<string, number> {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const map = new Map<string, number>();
  let extra = 0;
  for (let b = 0; b < 256; b++) map.set(String.fromCharCode(printable(b) ? b : 256 + extra++), b);
  return map;
}

let decoder: Map<string, number> | null = null;

/**
 * The raw bytes of one token, as OpenAI's `logprobs.content[].bytes` reports them. A byte-level
 * token may hold part of a UTF-8 character, which its decoded text cannot show; added tokens and
 * other tokenizers fall back to the UTF-8 bytes of the decoded text.
 */
export function tokenBytes(tokenizer: TextTokenizer, id: number): number[] | null {
  const piece = tokenizer.idToToken(id);
  if (piece === undefined) return null;
  if (tokenizer.byteLevel && !tokenizer.addedTokens.has(piece)) {
    decoder ??= byteDecoder();
    const out: number[] = [];
    for (const ch of piece) {
      const b = decoder.get(ch);
      if (b === undefined) return [...Buffer.from(tokenizer.decode([id]), 'utf8')];
      out.push(b);
    }
    return out;
  }
  return [...Buffer.from(tokenizer.decode([id]), 'utf8')];
}
