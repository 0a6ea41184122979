/**
 * An OpenClaw-shaped request, generated: a system prompt of about 40,000 characters of agent
 * instructions and workspace files (OpenClaw 2026.9's default is 40,845 characters, 21,059 of them
 * workspace files), a dozen tool schemas, and the user messages of a ten-turn coding session. The
 * text is varied prose, not one sentence repeated, so it tokenizes like real instructions.
 */
import type { ToolSpec } from '../../main/engine/text/chatTemplate.js';

const TOPICS = [
  'the workspace',
  'shell commands',
  'file edits',
  'git history',
  "the user's calendar",
  'long-running processes',
  'web searches',
  'memory notes',
  'messages to other people',
  'the browser',
  'secrets and credentials',
  'scheduled heartbeats',
  'sub-agents',
  'package installs',
  'test runs',
  'the project README',
  'configuration files',
  'log files',
  'screenshots',
  'daily summaries',
];

const RULES = [
  (t: string) => `When a task touches ${t}, read what is there before you change anything, and say what you found in one or two sentences.`,
  (t: string) => `Prefer the smallest change to ${t} that does what the user asked; do not tidy up unrelated parts on the way.`,
  (t: string) =>
    `If a step involving ${t} could lose data or cannot be undone, stop and ask the user first, naming exactly what would change.`,
  (t: string) => `Keep a short note of decisions about ${t} in MEMORY.md so that the next session does not have to rediscover them.`,
  (t: string) => `Never invent the contents of ${t}: if you have not read it in this session, read it now or say that you have not.`,
  (t: string) => `Report errors from ${t} verbatim, then explain in plain words what they most likely mean and what you will try next.`,
  (t: string) => `Work on ${t} in small steps, checking the result of each before the next, and summarise what changed at the end.`,
  (t: string) => `Respect the user's time around ${t}: batch related questions into one message instead of asking them one by one.`,
  (t: string) => `Anything you learn about ${t} that the user would want to know later belongs in the daily note, with the date.`,
  (t: string) => `Use the dedicated tool for ${t} when one exists rather than a shell command that does the same thing less safely.`,
];

const FILES: Array<[string, string]> = [
  ['AGENTS.md', 'How this workspace is organised, which agents exist, and what each of them is for.'],
  ['SOUL.md', 'Who you are: tone, values, and the boundaries you keep even when asked to cross them.'],
  ['TOOLS.md', 'Local notes about the tools on this machine: paths, quirks, and commands that are known to work.'],
  ['USER.md', 'What the user has told you about themselves: name, time zone, projects, and how they like to be addressed.'],
  ['IDENTITY.md', 'Your name, your emoji, and how you introduce yourself in a new conversation.'],
  ['HEARTBEAT.md', 'What to check when a heartbeat arrives: inbox, calendar, open pull requests, and reminders that are due.'],
  ['BOOTSTRAP.md', 'First-run instructions: read every workspace file, greet the user, and ask what to call them.'],
  ['MEMORY.md', 'Long-term memory: decisions, preferences, and facts worth keeping across sessions, newest first.'],
];

/** A paragraph of instructions: each rule applied to a few topics, starting at `seed`. */
function paragraph(seed: number, sentences: number): string {
  return Array.from({ length: sentences }, (_, i) => RULES[(seed + i) % RULES.length](TOPICS[(seed * 7 + i * 3) % TOPICS.length])).join(
    ' ',
  );
}

/** About `chars` characters of agent instructions and workspace files, deterministic. */
export function openclawSystemPrompt(chars = 40_000): string {
  const head = [
    'You are a personal assistant running inside OpenClaw.',
    '## Tooling\nTool availability is filtered by policy. Tool names are case-sensitive; call tools exactly as listed.',
    '## Safety\nYou have no independent goals. Do not pursue self-preservation, replication or resource acquisition.',
  ];
  const parts = [...head];
  let seed = 0;
  let file = 0;
  while (parts.join('\n\n').length < chars) {
    const [name, what] = FILES[file % FILES.length];
    parts.push(`## ${name}\n${what}\n\n${paragraph(seed, 6)}\n\n${paragraph(seed + 3, 5)}`);
    seed += 5;
    file++;
  }
  return parts.join('\n\n').slice(0, chars);
}

const tool = (name: string, description: string, props: Record<string, string>, required: string[]): ToolSpec => ({
  type: 'function',
  function: {
    name,
    description,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(Object.entries(props).map(([k, d]) => [k, { type: 'string', description: d }])),
      required,
    },
  },
});

/** Twelve tool schemas, shaped like OpenClaw's default tool set. */
export const OPENCLAW_TOOLS: ToolSpec[] = [
  tool(
    'read',
    'Read the contents of a file. Output is truncated to 2000 lines.',
    { path: 'Path to the file', offset: 'Line to start from' },
    ['path'],
  ),
  tool('write', 'Write a file, creating it or replacing its contents.', { path: 'Path to the file', content: 'The new contents' }, [
    'path',
    'content',
  ]),
  tool(
    'edit',
    'Replace one exact string in a file with another.',
    { path: 'Path', oldText: 'Exact text to replace', newText: 'Replacement' },
    ['path', 'oldText', 'newText'],
  ),
  tool(
    'exec',
    'Run a shell command in the workspace and return its output.',
    { command: 'The command line', workdir: 'Working directory', timeout: 'Seconds' },
    ['command'],
  ),
  tool(
    'process',
    'Manage background processes started by exec: list, poll, log, kill.',
    { action: 'list, poll, log or kill', sessionId: 'Process session id' },
    ['action'],
  ),
  tool('web_search', 'Search the web and return titles, URLs and snippets.', { query: 'Search query', count: 'Number of results' }, [
    'query',
  ]),
  tool('web_fetch', 'Fetch a URL and return its readable text.', { url: 'The URL', maxChars: 'Truncate after this many characters' }, [
    'url',
  ]),
  tool(
    'browser',
    'Control a browser: open, snapshot, click, type, screenshot.',
    { action: 'What to do', targetUrl: 'URL to open', ref: 'Element reference' },
    ['action'],
  ),
  tool('message', 'Send a message to a channel or person.', { to: 'Recipient', text: 'Message text', channel: 'Channel name' }, [
    'to',
    'text',
  ]),
  tool('memory_search', 'Search MEMORY.md and daily notes for relevant lines.', { query: 'What to look for', maxResults: 'Limit' }, [
    'query',
  ]),
  tool('memory_get', 'Read lines from a memory file.', { path: 'Memory file', from: 'First line', lines: 'Number of lines' }, ['path']),
  tool('sessions_spawn', 'Start a sub-agent session with its own task.', { task: 'What the sub-agent should do', label: 'Short label' }, [
    'task',
  ]),
];

/** The user messages of a ten-turn session. */
export const OPENCLAW_TURNS = [
  'Hi! Can you look at the project in ~/code/tally and tell me what it does?',
  'Run the tests and tell me which ones fail.',
  'Why does the date parsing test fail? Read the code before you answer.',
  'Fix it with the smallest change you can.',
  'Run the tests again.',
  'Great. Add a note to MEMORY.md that tally uses UTC dates everywhere.',
  'Now check whether the README explains how to run the tests.',
  'Add a short "Running the tests" section to the README.',
  'Commit the changes with a clear message.',
  'Thanks. Summarise what we did today in two sentences.',
];
