import { randomBytes } from 'node:crypto';
import type { ChatMessage, ToolSpec } from '../engine/chatTemplate.js';
import type { ParsedToolCall } from '../engine/chatOutputParser.js';
import type { TokenReport } from '../engine/chatGeneration.js';
import type { ChatCompletionRequest, TokenLogprob, WireMessage, WireToolCall } from '../protocol/openai.js';
import { ApiError } from './apiError.js';

/** Text of a message: strings as they are, text parts joined by newlines, null as ''. */
export function messageText(content: WireMessage['content'], where: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const part of content) {
    if (part.type === 'text' && typeof (part as { text?: unknown }).text === 'string') texts.push((part as { text: string }).text);
    else if (part.type === 'image_url' || part.type === 'input_image' || part.type === 'image') {
      throw new ApiError(
        400,
        `${where}: this model reads text only; images (content parts of type '${part.type}') are not supported`,
        'invalid_request_error',
        'unsupported_content',
        where,
      );
    } else {
      throw new ApiError(
        400,
        `${where}: content parts of type '${part.type}' are not supported; send text parts`,
        'invalid_request_error',
        'unsupported_content',
        where,
      );
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

/** The tools to put in the prompt (none when tool_choice is 'none'). */
export function toolsFor(req: ChatCompletionRequest): ToolSpec[] | undefined {
  if (!req.tools?.length || req.tool_choice === 'none') return undefined;
  return req.tools.map((t) => ({ type: 'function', function: { ...t.function, strict: t.function.strict ?? undefined } }));
}

/** The next state a main request carries: its last message, with its role. */
export function lastMessageState(messages: WireMessage[]): { role: string; text: string } {
  const last = messages[messages.length - 1];
  let text: string;
  try {
    text = messageText(last.content, 'last message');
  } catch {
    text = '';
  }
  if (!text && last.role === 'assistant' && last.tool_calls?.length) text = JSON.stringify(last.tool_calls);
  return { role: last.role === 'developer' ? 'system' : last.role, text };
}

/** A completion id: `chatcmpl-` and 24 hex digits. */
export function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString('hex')}`;
}

/** Tool-call ids are purely alphanumeric (`call` + 24 hex), because OpenClaw strips everything else. */
export function toolCallId(): string {
  return `call${randomBytes(12).toString('hex')}`;
}

export function toWireToolCalls(calls: ParsedToolCall[], ids: string[]): WireToolCall[] {
  return calls.map((c, i) => ({ id: ids[i], type: 'function', function: { name: c.name, arguments: c.arguments } }));
}

/** Token reports in OpenAI's `logprobs.content[]` shape. */
export function toLogprobs(tokens: TokenReport[]): TokenLogprob[] {
  return tokens.map((t) => ({
    token: t.token ?? '',
    logprob: t.logprob,
    bytes: t.bytes ?? null,
    top_logprobs: (t.top ?? []).map((a) => ({ token: a.token, logprob: a.logprob, bytes: a.bytes })),
  }));
}
