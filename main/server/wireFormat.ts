import { randomBytes } from 'node:crypto';
import type { ToolSpec } from '../engine/text/index.js';
import { messageText, MessageFormatError, toChatMessages as convert, toToolSpecs } from '../engine/text/index.js';
import type { ParsedToolCall } from '../engine/text/index.js';
import type { TokenReport } from '../engine/index.js';
import type { ChatCompletionRequest, TokenLogprob, WireMessage, WireToolCall } from '../protocol/openai.js';
import { ApiError } from './apiError.js';

/** Wire messages to template messages; a message the template cannot take is a 400 naming it. */
export function toChatMessages(messages: WireMessage[]) {
  try {
    return convert(messages);
  } catch (err) {
    if (err instanceof MessageFormatError) throw new ApiError(400, err.message, 'invalid_request_error', 'unsupported_content', err.where);
    throw err;
  }
}

/** The tools to put in the prompt (none when tool_choice is 'none'). */
export function toolsFor(req: ChatCompletionRequest): ToolSpec[] | undefined {
  if (!req.tools?.length || req.tool_choice === 'none') return undefined;
  return toToolSpecs(req.tools);
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
