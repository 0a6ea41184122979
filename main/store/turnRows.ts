import { float32Blob, fromFloat32Blob, fromInt32Blob, int32Blob } from './blobCodec.js';
import type { StoredFinishReason, StoredTurn, TurnRecord, TurnType } from './turnStore.js';

/** A row of the `turns` table as better-sqlite3 returns it. */
export interface TurnRow {
  id: string;
  session_id: string | null;
  episode: number;
  type: TurnType;
  created_at: number;
  completed_at: number;
  model: string;
  adapter_version: number;
  request_messages: string;
  tools: string | null;
  params: string;
  prompt_text: string;
  prompt_ids: Buffer;
  raw_text: string;
  response_text: string;
  reasoning_text: string;
  tool_calls: string | null;
  response_ids: Buffer;
  response_logprobs: Buffer;
  finish_reason: StoredFinishReason;
  prompt_tokens: number;
  completion_tokens: number;
  queue_ms: number | null;
  prefill_ms: number | null;
  decode_ms: number | null;
  total_ms: number | null;
  next_state_role: string | null;
  next_state_text: string | null;
  next_state_at: number | null;
  closed: number;
}

export function toTurn(r: TurnRow): StoredTurn {
  return {
    id: r.id,
    sessionId: r.session_id,
    episode: r.episode,
    type: r.type,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    model: r.model,
    adapterVersion: r.adapter_version,
    requestMessages: JSON.parse(r.request_messages),
    tools: r.tools ? JSON.parse(r.tools) : null,
    params: JSON.parse(r.params),
    promptText: r.prompt_text,
    promptIds: fromInt32Blob(r.prompt_ids),
    rawText: r.raw_text,
    responseText: r.response_text,
    reasoningText: r.reasoning_text,
    toolCalls: r.tool_calls ? JSON.parse(r.tool_calls) : null,
    responseIds: fromInt32Blob(r.response_ids),
    responseLogprobs: fromFloat32Blob(r.response_logprobs),
    finishReason: r.finish_reason,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    queueMs: r.queue_ms,
    prefillMs: r.prefill_ms,
    decodeMs: r.decode_ms,
    totalMs: r.total_ms,
    nextState: r.next_state_role === null ? null : { role: r.next_state_role, text: r.next_state_text ?? '', at: r.next_state_at ?? 0 },
    closed: r.closed === 1,
  };
}

/** The named parameters of the turn INSERT (every column but the learning loop's). */
export function toTurnRow(t: TurnRecord, episode: number) {
  return {
    id: t.id,
    session_id: t.sessionId,
    episode,
    type: t.type,
    created_at: t.createdAt,
    completed_at: t.completedAt,
    model: t.model,
    adapter_version: t.adapterVersion,
    request_messages: JSON.stringify(t.requestMessages),
    tools: t.tools ? JSON.stringify(t.tools) : null,
    params: JSON.stringify(t.params),
    prompt_text: t.promptText,
    prompt_ids: int32Blob(t.promptIds),
    raw_text: t.rawText,
    response_text: t.responseText,
    reasoning_text: t.reasoningText,
    tool_calls: t.toolCalls ? JSON.stringify(t.toolCalls) : null,
    response_ids: int32Blob(t.responseIds),
    response_logprobs: float32Blob(t.responseLogprobs),
    finish_reason: t.finishReason,
    prompt_tokens: t.promptTokens,
    completion_tokens: t.completionTokens,
    queue_ms: t.queueMs,
    prefill_ms: t.prefillMs,
    decode_ms: t.decodeMs,
    total_ms: t.totalMs,
  };
}
