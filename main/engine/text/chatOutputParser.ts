/**
 * Splits a model's streamed text into reasoning, answer text and tool calls, for models whose
 * chat template uses Qwen/Hermes markup: `<think>…</think>` around reasoning and
 * `<tool_call>{"name": …, "arguments": {…}}</tool_call>` per call.
 *
 * Text is held back while it could still be the start of a tag, so no event ever contains a
 * fragment of markup. A tool call is emitted whole, when its closing tag arrives; a block that is
 * not valid JSON is passed through as answer text rather than lost.
 */
import { partialSuffix } from './partialSuffix.js';

export interface ParsedToolCall {
  name: string;
  /** The arguments as a JSON object string. */
  arguments: string;
}

export type OutputEvent =
  { kind: 'reasoning'; text: string } | { kind: 'content'; text: string } | { kind: 'toolCall'; call: ParsedToolCall };

export interface OutputParserOptions {
  /** The prompt already opened `<think>` (some templates do), so output starts as reasoning. Default false. */
  startInReasoning?: boolean;
  /** Parse `<tool_call>` blocks (only when the request offered tools). Default true. */
  toolCalls?: boolean;
}

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';
const CALL_OPEN = '<tool_call>';
const CALL_CLOSE = '</tool_call>';

type State = 'content' | 'reasoning' | 'toolCall';

export class ChatOutputParser {
  private state: State;
  private buf = '';
  /** Whitespace at the end of the reasoning/answer, released only if more of the same text follows. */
  private pendingSpace = { reasoning: '', content: '' };
  /** Whitespace dropped before a `<tool_call>`, restored if the call turns out not to be one. */
  private spaceBeforeCall = '';
  /** Strip leading whitespace of the next reasoning/answer text (after a tag). */
  private trimNext = true;
  private readonly toolCallsEnabled: boolean;
  private sawToolCall = false;
  reasoning = '';
  content = '';
  readonly toolCalls: ParsedToolCall[] = [];

  constructor(opts: OutputParserOptions = {}) {
    this.state = opts.startInReasoning ? 'reasoning' : 'content';
    this.toolCallsEnabled = opts.toolCalls ?? true;
  }

  /** Feeds generated text; returns what became final. */
  push(text: string): OutputEvent[] {
    this.buf += text;
    const events: OutputEvent[] = [];
    for (;;) {
      const [len, state] = [this.buf.length, this.state];
      this.step(events, false);
      if (this.buf.length === len && this.state === state) break;
    }
    return events;
  }

  /** Flushes everything held back at the end of generation. */
  finish(): OutputEvent[] {
    const events: OutputEvent[] = [];
    this.step(events, true);
    if (this.state === 'toolCall' && this.buf) {
      // An unterminated call: keep its text as answer text.
      this.emitContent(events, this.spaceBeforeCall + CALL_OPEN + this.buf, true);
      this.buf = '';
    } else if (this.buf) {
      if (this.state === 'reasoning') this.emitReasoning(events, this.buf);
      else this.emitContent(events, this.buf, true);
      this.buf = '';
    }
    return events;
  }

  /** Whether a tool call was parsed (then the finish reason is 'tool_calls'). */
  get hasToolCalls(): boolean {
    return this.sawToolCall;
  }

  private tagsFor(state: State): string[] {
    if (state === 'reasoning') return [THINK_CLOSE];
    if (state === 'toolCall') return [CALL_CLOSE];
    return this.toolCallsEnabled ? [THINK_OPEN, CALL_OPEN] : [THINK_OPEN];
  }

  /** Consumes as much of the buffer as is safe in the current state. */
  private step(events: OutputEvent[], final: boolean): void {
    const tags = this.tagsFor(this.state);
    let at = -1;
    let tag = '';
    for (const t of tags) {
      const i = this.buf.indexOf(t);
      if (i >= 0 && (at < 0 || i < at)) {
        at = i;
        tag = t;
      }
    }
    if (at < 0) {
      if (this.state === 'toolCall') return; // wait for the closing tag
      const keep = final ? 0 : partialSuffix(this.buf, tags);
      const out = this.buf.slice(0, this.buf.length - keep);
      this.buf = this.buf.slice(this.buf.length - keep);
      if (this.state === 'reasoning') this.emitReasoning(events, out);
      else this.emitContent(events, out, false);
      return;
    }
    const head = this.buf.slice(0, at);
    this.buf = this.buf.slice(at + tag.length);
    switch (tag) {
      case THINK_OPEN:
        this.emitContent(events, head, false);
        this.state = 'reasoning';
        this.trimNext = true;
        break;
      case THINK_CLOSE:
        this.emitReasoning(events, head);
        this.pendingSpace.reasoning = '';
        this.state = 'content';
        this.trimNext = true;
        break;
      case CALL_OPEN:
        this.emitContent(events, head, false);
        this.spaceBeforeCall = this.pendingSpace.content; // layout, unless the call is invalid
        this.pendingSpace.content = '';
        this.state = 'toolCall';
        break;
      case CALL_CLOSE: {
        const call = parseToolCall(head);
        if (call) {
          this.toolCalls.push(call);
          this.sawToolCall = true;
          events.push({ kind: 'toolCall', call });
        } else {
          this.emitContent(events, this.spaceBeforeCall + CALL_OPEN + head + CALL_CLOSE, false);
        }
        this.state = 'content';
        this.trimNext = true;
        break;
      }
    }
  }

  private emitReasoning(events: OutputEvent[], text: string): void {
    this.emit(events, 'reasoning', text, false);
  }

  private emitContent(events: OutputEvent[], text: string, final: boolean): void {
    this.emit(events, 'content', text, final);
  }

  /**
   * Appends text of one kind, dropping leading whitespace after a tag and holding trailing
   * whitespace back until more text of that kind follows (so text never ends in the newlines
   * that precede a closing tag or a tool call).
   */
  private emit(events: OutputEvent[], kind: 'reasoning' | 'content', text: string, final: boolean): void {
    if (this.trimNext) {
      text = text.replace(/^\s+/, '');
      if (text) this.trimNext = false;
    }
    if (!text) return;
    let out = this.pendingSpace[kind] + text;
    this.pendingSpace[kind] = '';
    const trailing = /\s+$/.exec(out);
    if (trailing) {
      out = out.slice(0, out.length - trailing[0].length);
      if (!final) this.pendingSpace[kind] = trailing[0];
    }
    if (!out) return;
    this[kind] += out;
    const last = events[events.length - 1];
    if (last?.kind === kind) last.text += out;
    else events.push({ kind, text: out });
  }
}

/** `{"name": "...", "arguments": {...}}` (arguments may also be a JSON string); null when invalid. */
export function parseToolCall(body: string): ParsedToolCall | null {
  let v: unknown;
  try {
    v = JSON.parse(body.trim());
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object') return null;
  const o = v as { name?: unknown; arguments?: unknown; parameters?: unknown };
  if (typeof o.name !== 'string' || !o.name) return null;
  let args = o.arguments ?? o.parameters ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return null;
    }
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
  return { name: o.name, arguments: JSON.stringify(args) };
}
