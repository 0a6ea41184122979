import fs from 'node:fs';
import path from 'node:path';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';

export class TokenizerError extends Error {
  override name = 'TokenizerError';
}

function readJson(file: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new TokenizerError(`${file} is missing; a model folder needs ${what}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new TokenizerError(`${file}: not valid JSON (${(err as Error).message})`);
  }
}

/** A token string from tokenizer_config.json, which may be a string or an AddedToken object. */
function tokenString(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return null;
}

/**
 * A Hugging Face `tokenizer.json` tokenizer (through @huggingface/tokenizers) plus the special
 * tokens of `tokenizer_config.json`.
 */
export class TextTokenizer {
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  readonly padToken: string | null;
  readonly unkToken: string | null;
  /** The raw tokenizer_config.json (the chat template lives there). */
  readonly config: Record<string, unknown>;
  /** Added tokens (special or not), by content. */
  readonly addedTokens: ReadonlyMap<string, number>;
  /** Ids of added tokens flagged `special` (skipped when decoding with skipSpecialTokens). */
  readonly specialIds: ReadonlySet<number>;
  /** Number of ids the tokenizer can produce (max id + 1). */
  readonly vocabSize: number;
  /** True for byte-level BPE (GPT-2, Llama 3, Qwen): vocabulary strings encode raw bytes. */
  readonly byteLevel: boolean;
  private readonly tok: HfTokenizer;

  constructor(tokenizerJson: Record<string, unknown>, tokenizerConfig: Record<string, unknown>) {
    this.config = tokenizerConfig;
    try {
      this.tok = new HfTokenizer(tokenizerJson, tokenizerConfig);
    } catch (err) {
      throw new TokenizerError(`tokenizer.json could not be loaded: ${(err as Error).message}`);
    }
    const added = new Map<string, number>();
    const special = new Set<number>();
    for (const t of (tokenizerJson.added_tokens as Array<{ id: number; content: string; special?: boolean }>) ?? []) {
      added.set(t.content, t.id);
      if (t.special) special.add(t.id);
    }
    this.addedTokens = added;
    this.specialIds = special;
    this.bosToken = tokenString(tokenizerConfig.bos_token);
    this.eosToken = tokenString(tokenizerConfig.eos_token);
    this.padToken = tokenString(tokenizerConfig.pad_token);
    this.unkToken = tokenString(tokenizerConfig.unk_token);
    let max = -1;
    for (const id of this.tok.get_vocab(true).values()) if (id > max) max = id;
    this.vocabSize = max + 1;
    const decoder = tokenizerJson.decoder as { type?: string; decoders?: Array<{ type?: string }> } | null;
    this.byteLevel = decoder?.type === 'ByteLevel' || (decoder?.decoders ?? []).some((d) => d.type === 'ByteLevel');
  }

  /** Loads `tokenizer.json` and `tokenizer_config.json` from a model folder. */
  static fromDir(dir: string): TextTokenizer {
    const tj = readJson(path.join(dir, 'tokenizer.json'), 'tokenizer.json (Hugging Face tokenizers format)');
    const cfgFile = path.join(dir, 'tokenizer_config.json');
    const cfg = fs.existsSync(cfgFile) ? readJson(cfgFile, 'tokenizer_config.json') : {};
    return new TextTokenizer(tj, cfg);
  }

  /**
   * Text to ids. `addSpecialTokens` applies the tokenizer's post-processor (e.g. a BOS token);
   * off by default because chat templates already contain their special tokens.
   */
  encode(text: string, opts: { addSpecialTokens?: boolean } = {}): number[] {
    return this.tok.encode(text, { add_special_tokens: opts.addSpecialTokens ?? false }).ids;
  }

  /** Ids to text. Special tokens (e.g. `<|im_end|>`) are kept unless `skipSpecialTokens`. */
  decode(ids: readonly number[], opts: { skipSpecialTokens?: boolean } = {}): string {
    if (ids.length === 0) return '';
    return this.tok.decode(ids as number[], { skip_special_tokens: opts.skipSpecialTokens ?? false });
  }

  /** The vocabulary string of one id (e.g. 'Ġworld'), or undefined. */
  idToToken(id: number): string | undefined {
    return this.tok.id_to_token(id);
  }

  /**
   * The most characters one token can stand for (the longest vocabulary string; a byte-level
   * token's string has one character per byte). A text longer than n × this needs more than n tokens.
   */
  maxTokenChars(): number {
    let max = 1;
    for (const token of this.tok.get_vocab(true).keys()) if (token.length > max) max = token.length;
    return max;
  }

  tokenToId(token: string): number | undefined {
    return this.addedTokens.get(token) ?? this.tok.token_to_id(token);
  }

  /** An incremental decoder for streaming: see {@link StreamDecoder}. */
  streamDecoder(opts: { skipSpecialTokens?: boolean } = {}): StreamDecoder {
    return new StreamDecoder(this, opts.skipSpecialTokens ?? true);
  }
}

/**
 * Turns a stream of token ids into text deltas that never split a UTF-8 character (or a
 * multi-token grapheme a byte-level BPE spreads across tokens). It decodes a short window of
 * recent tokens twice — without and with the newest ones — and emits the difference only when the
 * window no longer ends in an incomplete character (U+FFFD).
 */
export class StreamDecoder {
  private ids: number[] = [];
  private prefixOffset = 0;
  private readOffset = 0;

  constructor(
    private readonly tokenizer: TextTokenizer,
    private readonly skipSpecialTokens: boolean,
  ) {}

  /** Adds one token; returns the text that became final (possibly ''). */
  push(id: number): string {
    this.ids.push(id);
    const opts = { skipSpecialTokens: this.skipSpecialTokens };
    const prefix = this.tokenizer.decode(this.ids.slice(this.prefixOffset, this.readOffset), opts);
    const full = this.tokenizer.decode(this.ids.slice(this.prefixOffset), opts);
    if (full.length > prefix.length && !full.endsWith('\uFFFD')) {
      this.prefixOffset = this.readOffset;
      this.readOffset = this.ids.length;
      return full.slice(prefix.length);
    }
    return '';
  }

  /** Text still held back at the end of the stream (an incomplete character decodes as U+FFFD). */
  flush(): string {
    const opts = { skipSpecialTokens: this.skipSpecialTokens };
    const prefix = this.tokenizer.decode(this.ids.slice(this.prefixOffset, this.readOffset), opts);
    const full = this.tokenizer.decode(this.ids.slice(this.prefixOffset), opts);
    this.prefixOffset = this.readOffset = this.ids.length;
    return full.length > prefix.length ? full.slice(prefix.length) : '';
  }
}
