/**
 * Writes docs/api.md from the route table (main/protocol/api.ts), the event schemas
 * (main/protocol/events.ts) and the examples (main/protocol/apiExamples.ts), so the reference
 * cannot drift from the code. `npm run docs:api` rewrites it; a test fails when it is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { API, routePath, type RouteName, type RouteSpec } from '../../main/protocol/api.js';
import { EXAMPLES } from '../../main/protocol/apiExamples.js';
import { EVENT_SCHEMAS, type EventName } from '../../main/protocol/events.js';
import { typeText } from './schemaText.js';

const BASE = 'http://127.0.0.1:30000';

const EVENT_NOTES: Record<EventName, string> = {
  'turn.captured': 'a model call was answered and recorded',
  'feedback.received': 'a 👍/👎 or hint arrived, or what followed a turn (its next state)',
  'sample.judged': 'the judge scored a turn; what it will train with',
  'sample.dropped': 'a turn that had a signal will not be trained on, and why',
  'train.step': 'an optimizer step ran (or was skipped, with the reason)',
  'checkpoint.saved': 'a step wrote a checkpoint (and, later, the competence gate’s verdict on it)',
  'adapter.live': 'a new adapter version serves from the next request on',
  'training.state': 'the learning loop changed state or its queue moved',
  'server.stopping':
    'the core is shutting down (Ctrl-C, SIGTERM): it finishes a training step under way and refuses new requests (503 `shutting_down`) until it is started again',
  error: 'something failed in the trainer, the judge, inference or the server (never swallowed)',
};

function curlFor(name: RouteName, spec: RouteSpec): string {
  const ex = EXAMPLES[name] ?? {};
  const url = `${BASE}${routePath(spec.path, ex.params ?? {})}${ex.query ? `?${ex.query}` : ''}`;
  const curl = spec.response.kind === 'events' ? 'curl -N' : 'curl';
  const parts = [`${curl}${spec.method === 'GET' ? '' : ` -X ${spec.method}`} '${url}'`];
  for (const [k, v] of Object.entries(ex.headers ?? {})) parts.push(`-H '${k}: ${v}'`);
  if (ex.request !== undefined) parts.push(`-H 'content-type: application/json'`, `-d '${JSON.stringify(ex.request)}'`);
  const oneLine = parts.join(' ');
  return oneLine.length <= 100 ? oneLine : parts.join(' \\\n  ');
}

function jsonBlock(value: unknown): string {
  return ['```json', JSON.stringify(value, null, 2), '```'].join('\n');
}

function responseSection(name: RouteName, spec: RouteSpec): string[] {
  const ex = EXAMPLES[name] ?? {};
  const r = spec.response;
  const out: string[] = [];
  if (r.kind === 'json' || r.kind === 'json_or_sse') out.push('Response:', '', '```ts', typeText(r.schema, 'output'), '```');
  if (r.kind === 'json_or_sse')
    out.push(
      '',
      'With `"stream": true`: `data:` events, each a chunk, then `data: [DONE]`:',
      '',
      '```ts',
      typeText(r.chunk, 'output'),
      '```',
    );
  if (r.kind === 'jsonl') out.push('Response: one JSON object per line:', '', '```ts', typeText(r.line, 'output'), '```');
  if (r.kind === 'events') out.push('Response: server-sent events, see [the event stream](#the-event-stream).');
  if (r.kind === 'static') out.push('Response: the file, or `index.html` for any path that is not a file (the app routes on the client).');
  if (ex.response !== undefined) out.push('', 'Example response:', '', jsonBlock(ex.response));
  if (ex.responseText !== undefined) out.push('', 'Example response:', '', '```', ex.responseText.trimEnd(), '```');
  return out;
}

function routeSection(name: RouteName): string {
  const spec: RouteSpec = API[name];
  const lines = [`### \`${spec.method} ${spec.path}\``, '', spec.summary, ''];
  const facts = [`name \`${name}\``, spec.auth ? 'needs the API key when one is set' : 'never needs the API key'];
  if (spec.aliases?.length) facts.push(`also answers at ${spec.aliases.map((a) => `\`${a}\``).join(', ')}`);
  if (spec.errors?.length) facts.push(`may answer ${spec.errors.join(', ')}`);
  lines.push(`<sub>${facts.join(' · ')}</sub>`, '');
  if (spec.query) lines.push('Query parameters:', '', '```ts', typeText(spec.query, 'input'), '```', '');
  if (spec.body) lines.push(`Request body${spec.bodyOptional ? ' (optional)' : ''}:`, '', '```ts', typeText(spec.body, 'input'), '```', '');
  lines.push('```sh', curlFor(name, spec), '```', '', ...responseSection(name, spec), '');
  return lines.join('\n');
}

function eventsSection(): string {
  const rows = (Object.keys(EVENT_SCHEMAS) as EventName[]).map((n) => {
    const shape = (EVENT_SCHEMAS[n] as z.ZodObject).shape;
    return `| \`${n}\` | ${EVENT_NOTES[n]} | ${Object.keys(shape)
      .map((k) => `\`${k}\``)
      .join(', ')} |`;
  });
  return [
    '## The event stream',
    '',
    '`GET /api/events` sends one server-sent event per thing that happens, as it happens: `id:` (increasing, kept across restarts), `event:` (the name) and `data:` (JSON: the fields below plus `at`, ms since the epoch). A client that reconnects with `Last-Event-ID: N` (browsers do this by themselves) or `?since=N` first gets every event after N — at least the last 10,000 events or the last hour are kept — then the live ones. When N is older than what is kept, a `stream.gap` event (`{requested, oldest}`) comes first: refetch state, then follow. A `: heartbeat` comment comes every 15 s.',
    '',
    '```sh',
    `curl -N ${BASE}/api/events`,
    `curl -N ${BASE}/api/events -H 'Last-Event-ID: 41'   # what happened after event 41`,
    '```',
    '',
    '| event | when | data |',
    '|---|---|---|',
    ...rows,
    '',
    ...(Object.keys(EVENT_SCHEMAS) as EventName[]).flatMap((n) => [
      `#### \`${n}\``,
      '',
      '```ts',
      typeText(EVENT_SCHEMAS[n], 'output'),
      '```',
      '',
    ]),
  ].join('\n');
}

const HEAD = `# ClawLoop HTTP API

<!-- Generated by scripts/docs/apiDocs.ts from main/protocol/ (npm run docs:api). Do not edit by hand. -->

Every route ClawLoop serves, generated from the one route table the server dispatches from
(\`main/protocol/api.ts\`), with the schema of each request and response and an example.
The base URL is \`${BASE}\` (\`clawloop serve --host/--port\`); OpenAI clients use \`${BASE}/v1\`.

- **Errors** always come in OpenAI's envelope \`{"error": {"message", "type", "code", "param"}}\`:
  \`param\` names the offending field and \`message\` says what to send instead. Any route may answer
  400 (bad input), 401 (missing or wrong API key), 403 (a Host header that is not this machine's,
  or a state change requested by a web page of another origin), 404, 405, 413 (body too large) or
  415 (a body that is not \`Content-Type: application/json\`); the others are listed per route.
- **API key**: when \`clawloop serve --api-key KEY\` (or the app) set one, send \`Authorization: Bearer KEY\`.
- **Browsers**: only the app served here (same origin) may change state; allow other origins with \`--cors\`.
`;

/** The whole of docs/api.md. */
export function apiMarkdown(): string {
  const names = Object.keys(API) as RouteName[];
  const index = names.map(
    (n) => `| \`${API[n].method}\` | [\`${API[n].path}\`](#${anchor(n)}) | ${API[n].summary.split('. ')[0].replace(/\.$/, '')} |`,
  );
  return (
    [HEAD, '## Routes', '', '| method | path | |', '|---|---|---|', ...index, '', ...names.map(routeSection), eventsSection()]
      .join('\n')
      .trimEnd() + '\n'
  );
}

function anchor(n: RouteName): string {
  const s = API[n];
  return `${s.method} ${s.path}`
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

export const API_DOCS_FILE = path.join('docs', 'api.md');

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(path.dirname(process.argv[1]), '../../..');
  fs.writeFileSync(path.join(root, API_DOCS_FILE), apiMarkdown());
  console.log(`wrote ${API_DOCS_FILE}`);
}
