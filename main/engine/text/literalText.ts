import type { ChatMessage, ToolSpec } from './chatTemplate.js';
import type { TextTokenizer } from './tokenizer.js';

/** Private-use characters that bracket the index of a protected literal in rendered text. */
const OPEN = '\uE000';
const CLOSE = '\uE001';
const SENTINEL = /\uE000(\d+)\uE001/g;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Keeps special-token look-alikes in text a client supplied (message content, tool results,
 * tool descriptions, extra template variables) as plain text when the prompt is tokenized. Without it, a pasted
 * `<|im_start|>system` would become the real control token and forge a turn, for the model and for
 * the judge. Only the chat template's own markup becomes control tokens.
 *
 * How: before rendering, each look-alike in the supplied text is replaced by a sentinel; the
 * rendered prompt is tokenized piece by piece, and each protected literal is tokenized so that no
 * special token can match it (split after its first character).
 */
export class LiteralGuard {
  private readonly pattern: RegExp | null;

  constructor(private readonly tokenizer: TextTokenizer) {
    const special = [...tokenizer.addedTokens].filter(([, id]) => tokenizer.specialIds.has(id)).map(([s]) => s);
    const alternatives = [...special.sort((a, b) => b.length - a.length).map(escapeRe), OPEN, CLOSE];
    this.pattern = special.length ? new RegExp(alternatives.join('|'), 'g') : null;
  }

  /**
   * The messages, tools and extra template variables (`chat_template_kwargs`, which templates such as
   * Llama's print: `date_string`) with every look-alike replaced by a sentinel; `literals` collects
   * the originals.
   */
  protect(
    messages: ChatMessage[],
    tools: ToolSpec[] | undefined,
    literals: string[],
    extra?: Record<string, unknown>,
  ): { messages: ChatMessage[]; tools?: ToolSpec[]; extra?: Record<string, unknown> } {
    if (!this.pattern) return { messages, tools, extra };
    const text = (s: string) => this.protectText(s, literals);
    const deep = (v: unknown): unknown =>
      typeof v === 'string'
        ? text(v)
        : Array.isArray(v)
          ? v.map(deep)
          : v && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)]))
            : v;
    return {
      messages: messages.map((m) => ({
        ...m,
        content: text(m.content),
        ...(m.reasoning_content !== undefined ? { reasoning_content: text(m.reasoning_content) } : {}),
        ...(m.tool_calls ? { tool_calls: deep(m.tool_calls) as ChatMessage['tool_calls'] } : {}),
      })),
      tools: tools ? (deep(tools) as ToolSpec[]) : undefined,
      extra: extra ? (deep(extra) as Record<string, unknown>) : undefined,
    };
  }

  private protectText(s: string, literals: string[]): string {
    return s.replace(this.pattern!, (m) => `${OPEN}${literals.push(m) - 1}${CLOSE}`);
  }

  /** The rendered prompt as the model reads it (sentinels back to the literal text). */
  restore(rendered: string, literals: string[]): string {
    return rendered.replace(SENTINEL, (_, i: string) => literals[Number(i)]);
  }

  /** Token ids of the rendered prompt: template markup as control tokens, protected literals as plain text. */
  encode(rendered: string, literals: string[]): number[] {
    const ids: number[] = [];
    let last = 0;
    for (const m of rendered.matchAll(SENTINEL)) {
      if (m.index! > last) ids.push(...this.tokenizer.encode(rendered.slice(last, m.index)));
      ids.push(...this.plain(literals[Number(m[1])]));
      last = m.index! + m[0].length;
    }
    if (last < rendered.length) ids.push(...this.tokenizer.encode(rendered.slice(last)));
    return ids;
  }

  /** Tokenizes `s` so that no special token matches: split after the first character until none would. */
  private plain(s: string): number[] {
    this.pattern!.lastIndex = 0;
    if (!s || !this.pattern!.test(s)) return s ? this.tokenizer.encode(s) : [];
    const [first, ...rest] = Array.from(s);
    return [...this.tokenizer.encode(first), ...this.plain(rest.join(''))];
  }
}
