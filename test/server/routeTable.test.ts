import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { API, ROUTE_NAMES, routePath, type RouteName, type RouteSpec } from '../../main/protocol/api.js';
import { EXAMPLES } from '../../main/protocol/apiExamples.js';
import { ApiErrorBodySchema } from '../../main/protocol/openai.js';
import { HANDLERS } from '../../main/server/routeTable.js';
import { apiMarkdown, API_DOCS_FILE } from '../../scripts/docs/apiDocs.js';
import { ROOT } from '../helpers/paths.js';
import { api, chat, startTestServer, waitFor, type TestServer } from '../helpers/testServer.js';

/** Validates `value`, failing with the route, the field and zod's reason. */
function check(schema: z.ZodType, value: unknown, what: string): void {
  const r = schema.safeParse(value);
  if (!r.success)
    assert.fail(
      `${what}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}\n${JSON.stringify(value).slice(0, 600)}`,
    );
}

describe('the route table', () => {
  it('has a handler and an example for every route, and every example matches its schemas', () => {
    assert.deepEqual(Object.keys(HANDLERS).sort(), [...ROUTE_NAMES].sort());
    assert.deepEqual(Object.keys(EXAMPLES).sort(), [...ROUTE_NAMES].sort());
    for (const name of ROUTE_NAMES) {
      const spec: RouteSpec = API[name];
      const ex = EXAMPLES[name];
      if (spec.body) check(spec.body, ex.request ?? {}, `${name} example request`);
      if (spec.query && ex.query) check(spec.query, Object.fromEntries(new URLSearchParams(ex.query)), `${name} example query`);
      const r = spec.response;
      if (r.kind === 'json' || r.kind === 'json_or_sse') check(r.schema, ex.response, `${name} example response`);
      if (r.kind === 'jsonl')
        for (const line of ex.responseText!.trim().split('\n')) check(r.line, JSON.parse(line), `${name} example line`);
    }
  });

  it('docs/api.md is generated from it and up to date (npm run docs:api rewrites it)', () => {
    const file = fs.readFileSync(path.join(ROOT, API_DOCS_FILE), 'utf8');
    assert.equal(file, apiMarkdown(), 'docs/api.md is stale: run npm run docs:api');
    for (const name of ROUTE_NAMES) assert.ok(file.includes(`${API[name].method} ${API[name].path}`), name);
  });
});

describe('a real response of every route matches its schema', () => {
  let t: TestServer;
  let turnId = '';
  let untrainedId = '';
  const session = 'walk';

  before(async () => {
    t = await startTestServer({ train: { method: 'rl', batch_size: 1, max_staleness: null }, options: { appDir: fixtureApp() } });
    const c = await chat(t, 'hello there', { session, type: 'main', maxTokens: 3 });
    turnId = c.id;
    await api(t, 'POST', '/v1/feedback', { completion_id: c.id, rating: 'up', hint: 'say more' });
    await waitFor(async () => (await api<{ step: number }>(t, 'GET', '/api/training/status')).body.step >= 1, 'the first step');
    untrainedId = (await chat(t, 'a side question', { maxTokens: 2 })).id;
  });
  after(() => t.close());

  /** The request each route is walked with: the example's, pointed at what this server holds. */
  function requestFor(name: RouteName): { params: Record<string, string>; query?: string; body?: unknown } {
    const ex = EXAMPLES[name];
    const ids: Record<string, string> = {
      id: name.startsWith('checkpoints.') ? 'step-000001' : name.startsWith('turns.') ? turnId : session,
      file: '/',
      token: name === 'auth.link' ? t.server.signInToken() : '',
    };
    const params = Object.fromEntries(Object.keys(ex.params ?? {}).map((k) => [k, ids[k]]));
    const bodies: Partial<Record<RouteName, unknown>> = {
      'chat.completions': { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 },
      feedback: { completion_id: untrainedId, hint: 'shorter' },
      'settings.apiKey': { api_key: null },
      'settings.update': { backend: 'wasm' },
      'checkpoints.export': { dir: 'walked' },
      'sessions.end': {},
    };
    return {
      params,
      query: name === 'events' ? 'since=0' : ex.query?.replace('limit=1', 'limit=5'),
      body: name in bodies ? bodies[name] : ex.request,
    };
  }

  // Destructive routes run last, in this order.
  const LAST: RouteName[] = ['checkpoints.rollback', 'sessions.end', 'sessions.delete'];
  const order = [...ROUTE_NAMES.filter((n) => !LAST.includes(n)), ...LAST];

  for (const name of order) {
    it(`${API[name].method} ${API[name].path}`, async () => {
      const spec: RouteSpec = API[name];
      const { params, query, body } = requestFor(name);
      const url = `${t.origin}${routePath(spec.path, params)}${query ? `?${query}` : ''}`;
      const ac = new AbortController();
      const res = await fetch(url, {
        method: spec.method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: ac.signal,
      });
      const text = spec.response.kind === 'events' ? await firstEvents(res, ac) : await res.text();
      assert.equal(res.status, 200, `${name}: ${text.slice(0, 300)}`);
      validateResponse(name, spec, text, res.headers.get('content-type') ?? '');
    });
  }

  it('errors of every kind come in the envelope', async () => {
    for (const [method, p] of [
      ['GET', '/api/nope'],
      ['DELETE', '/healthz'],
      ['GET', '/api/turns/%E0%A4%A'],
      ['GET', '/api/turns?limit=0'],
    ]) {
      const res = await fetch(`${t.origin}${p}`, { method });
      assert.ok(res.status >= 400 && res.status < 500, `${method} ${p}: ${res.status}`);
      check(ApiErrorBodySchema, await res.json(), `${method} ${p}`);
    }
  });
});

function validateResponse(name: RouteName, spec: RouteSpec, text: string, type: string): void {
  const r = spec.response;
  if (r.kind === 'json' || r.kind === 'json_or_sse') check(r.schema, JSON.parse(text), name);
  if (r.kind === 'jsonl') for (const line of text.trim().split('\n')) check(r.line, JSON.parse(line), name);
  if (r.kind === 'events') assert.match(text, /^id: \d+\nevent: [a-z.]+\ndata: \{/m, name);
  if (r.kind === 'static') assert.match(type, /text\/html/, name);
}

/** Reads an event stream until it has replayed a few events, then hangs up. */
async function firstEvents(res: Response, ac: AbortController): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while ((text.match(/\nevent: /g) ?? []).length < 3) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  ac.abort();
  return text;
}

/** A minimal built app, so the static route has something to serve. */
function fixtureApp(): string {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'clawloop-app-'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>ClawLoop</title>');
  return dir;
}
