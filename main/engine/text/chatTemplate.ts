import fs from 'node:fs';
import path from 'node:path';
import { Template } from '@huggingface/jinja';

/** A tool call inside an assistant message. `arguments` is a JSON string (OpenAI) or an object. */
export interface ToolCall {
  id?: string;
  type?: 'function';
  function: { name: string; arguments: string | Record<string, unknown> };
}

/** A chat message after normalisation: plain-string content, roles of the chat template. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  reasoning_content?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

/** A tool the model may call (OpenAI `tools[]` entry). */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export interface RenderOptions {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Append the assistant header so the model continues as the assistant. Default true. */
  addGenerationPrompt?: boolean;
  /** Extra template variables (e.g. `enable_thinking`). */
  extra?: Record<string, unknown>;
}

export class ChatTemplateError extends Error {
  override name = 'ChatTemplateError';
}

/**
 * A Hugging Face chat template (Jinja), rendered with @huggingface/jinja the way transformers'
 * `apply_chat_template` does: special-token variables and tool-call arguments passed as objects
 * (the library provides `raise_exception` and `strftime_now`).
 */
export class ChatTemplate {
  private readonly template: Template;
  private readonly toolTemplate: Template | null;

  /**
   * @param source the template, or transformers' list form `[{name, template}]` (the `default`
   *   entry is used, and `tool_use` when tools are given).
   * @param specialTokens values for `bos_token`, `eos_token`, `pad_token`, `unk_token`.
   */
  constructor(
    source: string | Array<{ name: string; template: string }>,
    private readonly specialTokens: Record<string, string | null> = {},
  ) {
    let main: string;
    let tools: string | null = null;
    if (Array.isArray(source)) {
      const byName = new Map(source.map((t) => [t.name, t.template]));
      main = byName.get('default') ?? source[0]?.template ?? '';
      tools = byName.get('tool_use') ?? null;
    } else {
      main = source;
    }
    if (!main) throw new ChatTemplateError('the chat template is empty');
    try {
      this.template = new Template(main);
      this.toolTemplate = tools ? new Template(tools) : null;
    } catch (err) {
      throw new ChatTemplateError(`the chat template does not parse: ${(err as Error).message}`);
    }
  }

  /**
   * Finds a model folder's template: `chat_template.jinja`, else `chat_template` in
   * `tokenizer_config.json`. Returns null when there is none.
   */
  static fromDir(dir: string, tokenizerConfig: Record<string, unknown>, specialTokens: Record<string, string | null>): ChatTemplate | null {
    const file = path.join(dir, 'chat_template.jinja');
    if (fs.existsSync(file)) return new ChatTemplate(fs.readFileSync(file, 'utf8'), specialTokens);
    const src = tokenizerConfig.chat_template as string | Array<{ name: string; template: string }> | undefined;
    return src ? new ChatTemplate(src, specialTokens) : null;
  }

  render(opts: RenderOptions): string {
    const tools = opts.tools && opts.tools.length > 0 ? opts.tools : undefined;
    const tpl = tools && this.toolTemplate ? this.toolTemplate : this.template;
    const messages = opts.messages.map(forTemplate);
    try {
      return tpl.render({
        ...this.specialTokens,
        ...opts.extra,
        messages,
        tools,
        add_generation_prompt: opts.addGenerationPrompt ?? true,
      });
    } catch (err) {
      // Includes the template's own raise_exception('...') messages.
      throw new ChatTemplateError(`rendering the chat template failed: ${(err as Error).message}`);
    }
  }
}

/** transformers passes tool-call arguments as dicts; OpenAI clients send JSON strings. */
function forTemplate(m: ChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { ...m };
  if (m.tool_calls) {
    out.tool_calls = m.tool_calls.map((tc) => {
      let args = tc.function.arguments;
      if (typeof args === 'string') {
        try {
          const parsed = JSON.parse(args);
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed;
        } catch {
          // Not JSON: the template prints the string as it is.
        }
      }
      return { ...tc, type: tc.type ?? 'function', function: { name: tc.function.name, arguments: args } };
    });
  }
  return out;
}
