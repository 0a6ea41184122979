/**
 * Recognises the calls upstream OpenClaw (2026.9.x) makes, which carry no RL headers, so that its
 * agent turns train and its helper calls do not. Every marker below is a string OpenClaw itself
 * puts into the request; docs/openclaw.md lists each call kind with the OpenClaw source it comes from.
 */
import { createHash } from 'node:crypto';
import type { WireMessage } from '../protocol/openai.js';
import { messageText } from '../engine/text/index.js';
import { INTERNAL_CONTEXT, RUNTIME_LINE, stripEnvelope } from '../protocol/messageEnvelope.js';
import { sessionIdProblem } from '../protocol/sessions.js';

/** What kind of OpenClaw call a request is; `null` when it does not look like OpenClaw at all. */
export type OpenClawCallKind = 'agent-turn' | 'tool-continuation' | 'compaction' | 'memory-flush' | 'heartbeat' | 'slug' | 'helper';

/** The identity line every agent system prompt starts with (src/agents/system-prompt). */
const AGENT_IDENTITY = 'You are a personal assistant running inside OpenClaw.';
/** The compaction summariser's system prompt (SUMMARIZATION_SYSTEM_PROMPT, agents/compaction). */
const COMPACTION_SYSTEM = 'You are a context summarization assistant.';
/** Helper runs that reuse the agent's system prompt are told apart by the message that starts them. */
const HELPER_PROMPTS: Array<[OpenClawCallKind, RegExp]> = [
  // memory-core's DEFAULT_MEMORY_FLUSH_PROMPT.
  ['memory-flush', /^Pre-compaction memory flush\b/],
  // HEARTBEAT_PROMPT (2026.9: "Follow the heartbeat monitor scratch context…"; earlier: "Read HEARTBEAT.md if it exists…").
  ['heartbeat', /^(Follow the heartbeat monitor scratch context|Read HEARTBEAT\.md if it exists)/],
  // generateSlugViaLLM (hooks/llm-slug-generator).
  ['slug', /^Based on this conversation, generate a short 1-2 word filename slug/],
];
const RUNTIME_SESSION = /\bsessionId=([^\s|]+)/;

function textOf(m: WireMessage | undefined): string {
  if (!m) return '';
  try {
    return messageText(m.content, 'message');
  } catch {
    return '';
  }
}

/** The person's words in an OpenClaw user message: without the time envelope and the runtime line. */
export function personText(text: string): string {
  return stripEnvelope(text).trim();
}

/** The user message that started the current run: the last one that is not OpenClaw's internal context. */
export function triggerMessage(messages: WireMessage[]): { index: number; text: string } | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    const text = textOf(messages[i]);
    if (!text.startsWith(INTERNAL_CONTEXT)) return { index: i, text };
  }
  return null;
}

/** Which OpenClaw call a request is, from its system prompt and the message that started its run. */
export function openClawCallKind(messages: WireMessage[]): OpenClawCallKind | null {
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map(textOf)
    .join('\n');
  if (system.startsWith(COMPACTION_SYSTEM)) return 'compaction';
  const isAgent = system.includes(AGENT_IDENTITY);
  if (!isAgent) return /\bOpenClaw\b/.test(system) ? 'helper' : null;
  const trigger = triggerMessage(messages);
  const words = trigger ? personText(trigger.text) : '';
  for (const [kind, re] of HELPER_PROMPTS) if (re.test(words) || (trigger && re.test(trigger.text))) return kind;
  return messages[messages.length - 1]?.role === 'tool' ? 'tool-continuation' : 'agent-turn';
}

/**
 * The session of an OpenClaw agent turn that came without a session header: the `sessionId=` of
 * the runtime line OpenClaw appends to a run's first message, else a hash of the conversation's
 * first message (which carries its time envelope), so every turn of one conversation agrees. A
 * runtime id that X-Session-Id would refuse (too long, control or invisible characters) is replaced
 * by a hash of it: OpenClaw cannot be told to send another, and it must never be stored or shown raw.
 */
export function openClawSessionFromHistory(messages: WireMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    const m = RUNTIME_LINE.exec(textOf(messages[i]));
    const id = m ? RUNTIME_SESSION.exec(m[0]) : null;
    if (id) return sessionIdProblem(id[1]) === null ? id[1] : `openclaw-${hash(id[1])}`;
  }
  const first = messages.find((m) => m.role === 'user');
  const text = textOf(first);
  if (!text) return null;
  return `openclaw-${hash(text)}`;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * OpenClaw's session affinity headers carry `<sessionId>:<compaction boundaries>` (the prompt-cache
 * key, resolveSessionBoundaryPromptCacheKey): the count rises at each compaction, the session does not.
 */
export function stripBoundaryCount(affinity: string): string {
  return affinity.replace(/:\d+$/, '');
}

/**
 * The next state an OpenClaw agent turn carries for the session's previous turn: its last message
 * that is not OpenClaw's internal context (the person's reply without its envelope, or a tool result).
 */
export function openClawNextState(messages: WireMessage[]): { role: string; text: string } | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    const text = textOf(m);
    if (m.role === 'user' && text.startsWith(INTERNAL_CONTEXT)) continue;
    return { role: m.role, text: m.role === 'user' ? personText(text) : text };
  }
  return null;
}
