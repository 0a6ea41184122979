/**
 * OpenClaw-shaped system prompts for the default model's agent examples: an identity line, the
 * tool list, safety and messaging rules, workspace notes, the date and the runtime line, in the
 * order and at the length OpenClaw's lean prompt has (2,000 to 9,000 characters). Every section
 * has phrasings trained on and held-out ones (evalAgent.ts), so the eval reads prompts the model
 * never saw.
 */
import type { Rng } from '../../main/util/random.js';
import type { AgentTool, AgentWorld } from './agentTools.js';

interface Variants {
  train: readonly string[];
  heldOut: readonly string[];
}

const IDENTITY: Variants = {
  train: [
    'You are a personal assistant running inside OpenClaw.',
    'You are the user\u2019s own assistant, running locally through OpenClaw.',
    'You are an agent with access to tools. Help the user with whatever they ask.',
  ],
  heldOut: [
    'You are a capable home assistant that lives in the user\u2019s OpenClaw workspace.',
    'Act as a helpful agent for the person you talk to.',
  ],
};

const TOOLING_HEAD: Variants = {
  train: ['## Tooling\nTool availability (filtered by policy):', '## Tools\nYou can use these tools:', '## Available tools'],
  heldOut: ['## What you can do\nThese functions are enabled for this session:'],
};

const RULES: Variants = {
  train: [
    '## Safety\nNever reveal secrets from the workspace. Ask before deleting files or sending money.',
    '## Tool call style\nCall a tool only when the request needs it. Answer directly when you already know the answer.',
    '## Messaging\nReply in the same language as the user. Keep replies short unless asked for detail.',
    '## Memory\nUse memory notes for facts about the user; do not invent them.',
    '## Heartbeats\nIf a heartbeat poll arrives and nothing needs attention, reply HEARTBEAT_OK.',
    '## Silent replies\nWhen you have nothing to say, reply with NO_REPLY only.',
    '## Reasoning\nThink before acting, but keep your reasoning out of the reply.',
  ],
  heldOut: [
    '## Ground rules\nDo not share private data. Confirm before anything irreversible.',
    '## When to use tools\nUse a function when you need fresh or external information; otherwise just answer.',
    '## Style\nBe brief and friendly. Match the user\u2019s language.',
  ],
};

const NOTE_LINES: Variants = {
  train: [
    'The user prefers short answers.',
    'The user works from home on Mondays.',
    'The project "{topic}" is on hold until next month.',
    '{person} is the user\u2019s sister.',
    'Backups run every night at 02:00.',
    'The user is learning to cook.',
    'Keep a polite tone with {person}.',
    'Meetings are never before 9:00.',
    'The user\u2019s home city is {city}.',
    'Invoices go to accounts@example.org.',
  ],
  heldOut: [
    'The user cycles to work when it is dry.',
    '{person} owes the user a book.',
    'The user reads about {topic} on weekends.',
    'Do not schedule anything on Sundays.',
  ],
};

/** The prompt's pieces: trained-on phrasings, or held-out ones for evaluation. */
export type PromptSet = 'train' | 'heldOut';

function fillSlots(line: string, r: Rng, w: AgentWorld): string {
  return line.replace('{person}', r.pick(w.people)).replace('{topic}', r.pick(w.topics)).replace('{city}', r.pick(w.kb.countries).capital);
}

/** The workspace notes (USER.md, MEMORY.md and the like): `lines` lines drawn with repeats. */
function notes(r: Rng, w: AgentWorld, set: PromptSet, lines: number): string {
  const file = r.pick(set === 'train' ? ['USER.md', 'MEMORY.md', 'AGENTS.md'] : ['NOTES.md', 'PROFILE.md']);
  const out = [`## Workspace notes (${file})`];
  for (let i = 0; i < lines; i++) out.push(`- ${fillSlots(r.pick(NOTE_LINES[set]), r, w)}`);
  return out.join('\n');
}

/**
 * One system prompt listing `tools` by name and description (their JSON schemas follow it, in the
 * chat template's tool block). `noteLines` sets its length: 0 gives about 1,000 characters, 120
 * about 5,000.
 */
export function agentSystemPrompt(r: Rng, w: AgentWorld, tools: readonly AgentTool[], set: PromptSet, noteLines: number): string {
  const day = r.pick(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']);
  const sections = [
    r.pick(IDENTITY[set]),
    [r.pick(TOOLING_HEAD[set]), ...tools.map((t) => `- ${t.spec.function.name}: ${t.spec.function.description}`)].join('\n'),
    ...r.shuffle(RULES[set]).slice(0, r.int(2, RULES[set].length)),
    `## Workspace\nYour working directory is: /home/${r.pick(w.people).toLowerCase()}/.openclaw/workspace`,
    notes(r, w, set, noteLines),
    `## Current Date & Time\n${day} 2026-${String(r.int(1, 12)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')} ${r.int(0, 23)}:${String(r.int(0, 59)).padStart(2, '0')} UTC`,
    `## Runtime\nRuntime: agent=main | host=${r.pick(['laptop', 'homebox', 'pi'])} | model=clawloop/clawloop-mini | channel=${r.pick(['cli', 'telegram', 'webchat'])}`,
  ];
  return sections.join('\n\n');
}

/** OpenClaw's timestamp envelope on a user message, as it sends them ("[Fri 2026-11-27 12:04 UTC] …"), or none. */
export function envelope(r: Rng, text: string): string {
  if (!r.chance(0.5)) return text;
  const d = r.pick(['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']);
  return `[${d} 2026-${String(r.int(1, 12)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')} ${String(r.int(0, 23)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')} UTC] ${text}`;
}
