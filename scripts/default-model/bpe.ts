/**
 * A byte-level BPE trainer that writes Hugging Face's `tokenizer.json` (the format of GPT-2,
 * Llama 3 and Qwen): text is split by Qwen's pre-tokenizer pattern (digits one by one), each piece
 * is mapped to bytes, and the most frequent adjacent pair is merged until the vocabulary is full.
 */

/** Tokens that never come out of BPE; the first three are special (skipped when decoding). */
export const SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
export const MARKUP_TOKENS = ['<think>', '</think>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>'];

/** Qwen2/Qwen3's pre-tokenizer pattern, as written in their tokenizer.json. */
export const SPLIT_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** The same pattern for JavaScript (which has no inline `(?i:` group). */
const SPLIT_JS = new RegExp(
  "'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  'gu',
);

/** GPT-2's reversible map from bytes to printable characters. */
export function bytesToUnicode(): string[] {
  const bs: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  const map = new Array<string>(256);
  bs.forEach((b, i) => (map[b] = String.fromCodePoint(cs[i])));
  return map;
}

/** Pre-tokenized pieces of a text, special tokens removed. */
export function pretokenize(text: string): string[] {
  const specials = new RegExp([...SPECIAL_TOKENS, ...MARKUP_TOKENS].map((s) => s.replace(/[|]/g, '\\|')).join('|'), 'g');
  const out: string[] = [];
  for (const part of text.split(specials)) for (const m of part.matchAll(SPLIT_JS)) out.push(m[0]);
  return out;
}

export interface BpeResult {
  /** Token string (byte-level characters) → id. */
  vocab: Map<string, number>;
  merges: Array<[string, string]>;
}

/**
 * Learns merges until `vocabSize` (bytes + merges + added tokens) is reached. Ties go to the pair
 * seen first, so the result is deterministic.
 */
export function trainBpe(texts: Iterable<string>, vocabSize: number, log?: (s: string) => void): BpeResult {
  const b2u = bytesToUnicode();
  const enc = new TextEncoder();
  const counts = new Map<string, number>();
  for (const t of texts) for (const p of pretokenize(t)) counts.set(p, (counts.get(p) ?? 0) + 1);

  const symbols: string[] = [...b2u];
  const symbolId = new Map<string, number>(symbols.map((s, i) => [s, i]));
  const words: number[][] = [];
  const freq: number[] = [];
  for (const [w, c] of counts) {
    words.push([...enc.encode(w)].map((b) => b));
    freq.push(c);
  }
  const key = (a: number, b: number) => a * 65536 + b;
  const pairCount = new Map<number, number>();
  const pairWords = new Map<number, Set<number>>();
  const addPairs = (wi: number, sign: number) => {
    const w = words[wi];
    for (let i = 0; i + 1 < w.length; i++) {
      const k = key(w[i], w[i + 1]);
      pairCount.set(k, (pairCount.get(k) ?? 0) + sign * freq[wi]);
      if (sign > 0) {
        let s = pairWords.get(k);
        if (!s) pairWords.set(k, (s = new Set()));
        s.add(wi);
      }
    }
  };
  for (let wi = 0; wi < words.length; wi++) addPairs(wi, 1);

  const merges: Array<[string, string]> = [];
  const budget = vocabSize - 256 - SPECIAL_TOKENS.length - MARKUP_TOKENS.length;
  while (merges.length < budget) {
    let best = -1;
    let bestCount = 1; // a pair seen once is not worth a token
    for (const [k, c] of pairCount) {
      if (c > bestCount || (c === bestCount && best >= 0 && k < best && c > 1)) {
        best = k;
        bestCount = c;
      }
    }
    if (best < 0) break;
    const a = Math.floor(best / 65536);
    const b = best % 65536;
    const merged = symbols.length;
    symbols.push(symbols[a] + symbols[b]);
    symbolId.set(symbols[merged], merged);
    merges.push([symbols[a], symbols[b]]);
    for (const wi of [...(pairWords.get(best) ?? [])]) {
      addPairs(wi, -1);
      const w = words[wi];
      const out: number[] = [];
      for (let i = 0; i < w.length; i++) {
        if (i + 1 < w.length && w[i] === a && w[i + 1] === b) {
          out.push(merged);
          i++;
        } else out.push(w[i]);
      }
      words[wi] = out;
      addPairs(wi, 1);
    }
    pairCount.delete(best);
    pairWords.delete(best);
    if (log && merges.length % 500 === 0) log(`bpe: ${merges.length} merges, last '${symbols[merged]}' ×${bestCount}`);
  }
  const vocab = new Map<string, number>();
  symbols.forEach((s, i) => vocab.set(s, i));
  return { vocab, merges };
}

/** `tokenizer.json` for a trained BPE, with ChatML special tokens and tool/reasoning markup. */
export function tokenizerJson(bpe: BpeResult): Record<string, unknown> {
  const vocab: Record<string, number> = Object.fromEntries(bpe.vocab);
  let next = bpe.vocab.size;
  const added = [...SPECIAL_TOKENS, ...MARKUP_TOKENS].map((content) => {
    const id = next++;
    vocab[content] = id;
    return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: SPECIAL_TOKENS.includes(content) };
  });
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: { type: 'NFC' },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [{ type: 'Split', pattern: { Regex: SPLIT_PATTERN }, behavior: 'Isolated', invert: false }, byteLevel],
    },
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: bpe.merges.map(([a, b]) => `${a} ${b}`),
    },
  };
}

/** `tokenizer_config.json`: special tokens and the chat template. */
export function tokenizerConfig(chatTemplate: string, maxLength: number): Record<string, unknown> {
  return {
    add_bos_token: false,
    add_prefix_space: false,
    bos_token: null,
    eos_token: '<|im_end|>',
    pad_token: '<|endoftext|>',
    unk_token: null,
    clean_up_tokenization_spaces: false,
    model_max_length: maxLength,
    tokenizer_class: 'Qwen2Tokenizer',
    chat_template: chatTemplate,
  };
}
