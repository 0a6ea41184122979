import type { WireMessage, WireTool } from '../../protocol/openai.js';
import type { ChatMessage, ToolSpec } from './chatTemplate.js';

/** A message the chat template cannot take (e.g. an image for a text-only model); `where` names it. */
export class MessageFormatError extends Error {
  override name = 'MessageFormatError';
  constructor(
    message: string,
    readonly where: string,
  ) {
    super(message);
  }
}

/** Text of a message: strings as they are, text parts joined by newlines, null as ''. */
export function messageText(content: WireMessage['content'], where: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const part of content) {
    if (part.type === 'text' && typeof (part as { text?: unknown }).text === 'string') texts.push((part as { text: string }).text);
    else if (part.type === 'image_url' || part.type === 'input_image' || part.type === 'image') {
      throw new MessageFormatError(
        `${where}: this model reads text only; images (content parts of type '${part.type}') are not supported`,
        where,
      );
    } else {
      throw new MessageFormatError(`${where}: content parts of type '${part.type}' are not supported; send text parts`, where);
    }
  }
  return texts.join('\n');
}

/**
 * OpenAI-style messages to chat-template messages: `developer` becomes `system`, content parts
 * become strings, `content: null` becomes '', and replayed reasoning is kept as `reasoning_content`
 * (templates decide whether to show it).
 */
export function toChatMessages(messages: WireMessage[]): ChatMessage[] {
  return messages.map((m, i) => {
    const role = m.role === 'developer' ? 'system' : m.role;
    const out: ChatMessage = { role, content: messageText(m.content, `messages[${i}].content`) };
    const reasoning = m.reasoning_content ?? m.reasoning ?? m.reasoning_text;
    if (role === 'assistant' && reasoning) out.reasoning_content = reasoning;
    if (role === 'assistant' && m.tool_calls?.length) {
      out.tool_calls = m.tool_calls.map((tc) => ({
        id: tc.id,
        type: 'function',
        function: { name: tc.function.name, arguments: tc.function.arguments ?? '{}' },
      }));
    }
    if (role === 'tool') {
      if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
      if (m.name) out.name = m.name;
    }
    return out;
  });
}

/** OpenAI `tools` entries as template tool specs. */
export function toToolSpecs(tools: WireTool[]): ToolSpec[] {
  return tools.map((t) => ({ type: 'function', function: { ...t.function, strict: t.function.strict ?? undefined } }));
}

/** The marker OPD's teacher context uses (docs/learning-loop.md §3). */
export const HINT_MARKER = "[user's hint / instruction]";

/**
 * The teacher context of on-policy distillation: the same messages with the hint appended to the
 * last user message as a marked block (a new user message when there is none).
 */
export function withHint(messages: ChatMessage[], hint: string): ChatMessage[] {
  const out = messages.map((m) => ({ ...m }));
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i].role === 'user') {
      out[i].content = `${out[i].content}\n\n${HINT_MARKER}\n${hint}`;
      return out;
    }
  }
  out.push({ role: 'user', content: `${HINT_MARKER}\n${hint}` });
  return out;
}
