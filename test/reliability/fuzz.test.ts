import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { API, ROUTE_NAMES, pathParams, type RouteName, type RouteSpec } from '../../main/protocol/api.js';
import { ApiErrorBodySchema } from '../../main/protocol/openai.js';
import { arbitraryFor, nastyString } from '../helpers/schemaArbitrary.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServe, type ServeProcess } from '../helpers/serveProcess.js';
import { longContextModel } from '../helpers/testServer.js';

/** Cases in all, spread over the routes; the seed is fixed so a failure replays. */
const CASES = Number(process.env.CLAWLOOP_FUZZ_CASES ?? 10_000);
const SEED = Number(process.env.CLAWLOOP_FUZZ_SEED ?? 20261123);

/** Routes that answer with something other than 2xx/4xx by design, and when. */
const DECLARED_5XX = new Set([503, 507]);

interface Case {
  params: string[];
  query: unknown;
  body: unknown;
  contentType: string;
  rawBody: string | null;
}

function caseArbitrary(name: RouteName, spec: RouteSpec): fc.Arbitrary<Case> {
  const params = fc.array(fc.oneof(nastyString, fc.constantFrom('base', 'step-000001', 'fuzz', 'unknown')), {
    minLength: pathParams(spec.path).length,
    maxLength: pathParams(spec.path).length,
  });
  let body: fc.Arbitrary<unknown> = spec.body ? arbitraryFor(spec.body) : fc.constant(undefined);
  // Keep generations short: the fuzz is about the server's handling, not about long decodes.
  if (name === 'chat.completions')
    body = body.map((b) =>
      b && typeof b === 'object' && !Array.isArray(b)
        ? { ...b, max_tokens: 2, max_completion_tokens: 2, stream: (b as { stream?: unknown }).stream }
        : b,
    );
  return fc.record({
    params,
    query: spec.query ? arbitraryFor(spec.query) : fc.constant(undefined),
    body,
    contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain', ''),
    rawBody: fc.option(fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('{', '[]', 'null', '{"a":' + '['.repeat(200))), { freq: 8 }),
  });
}

function urlOf(origin: string, spec: RouteSpec, c: Case): string {
  let i = 0;
  const path = spec.path.replace(/\{(\w+)\}/g, () => encodeURIComponent(String(c.params[i++] ?? '')) || '%20');
  const entries =
    c.query && typeof c.query === 'object' ? Object.entries(c.query as object).map(([k, v]): [string, string] => [k, String(v)]) : [];
  const q = new URLSearchParams(entries).toString();
  return `${origin}${path}${q ? `?${q}` : ''}`;
}

describe(`fuzz: ${CASES} requests over every route of the table (seed ${SEED})`, () => {
  let t: ServeProcess;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-fuzz-'));
  const statuses = new Map<number, number>();
  const rss = async () => ((await (await fetch(`${t.origin}/api/info`)).json()) as { memory: { rss_bytes: number } }).memory.rss_bytes;
  let rssBefore = 0;

  before(async () => {
    t = await startServe(longContextModel('qwen3-qknorm', 512), dataDir, ['--train-method', 'off', '--max-batch', '4']);
    // Warm up every path once (the engine's buffers grow to their working size), then measure.
    await fetch(`${t.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'warm up' }], max_tokens: 2 }),
    });
  });
  after(() => {
    t.child.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const routes = ROUTE_NAMES.filter((n) => API[n].response.kind !== 'events' && n !== 'settings.apiKey');

  /** Sends `runs` fuzzed requests to one route and checks every answer. */
  async function fuzzRoute(name: RouteName, runs: number, seed: number): Promise<void> {
    const spec: RouteSpec = API[name];
    await fc.assert(
      fc.asyncProperty(caseArbitrary(name, spec), async (c) => {
        const body = spec.method === 'GET' ? undefined : (c.rawBody ?? (c.body === undefined ? undefined : JSON.stringify(c.body)));
        const res = await fetch(urlOf(t.origin, spec, c), {
          method: spec.method,
          headers: body === undefined || !c.contentType ? {} : { 'content-type': c.contentType },
          body,
        });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        assert.ok(res.status < 500 || DECLARED_5XX.has(res.status), `${name} answered ${res.status}: ${text.slice(0, 400)}`);
        if (res.status >= 400) {
          const parsed = ApiErrorBodySchema.safeParse(JSON.parse(text));
          assert.ok(parsed.success, `${name} ${res.status} is not the error envelope: ${text.slice(0, 200)}`);
        }
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  }

  it('warm-up: a few cases per route, so memory is measured from its working size', async () => {
    for (const name of routes) await fuzzRoute(name, 20, SEED + 1);
    rssBefore = await rss();
  });

  for (const name of routes) {
    it(`${API[name].method} ${API[name].path}`, async () => {
      await fuzzRoute(name, Math.ceil(CASES / routes.length), SEED);
      if (process.env.CLAWLOOP_FUZZ_RSS) console.log(`${name}: server RSS ${((await rss()) / 2 ** 20).toFixed(0)} MiB`);
    });
  }

  it('the server is alive and every generation slot is free again', async () => {
    const h = (await (await fetch(`${t.origin}/healthz`)).json()) as { status: string; running: number; queued: number };
    assert.deepEqual([h.status, h.running, h.queued], ['ok', 0, 0]);
    assert.equal(t.child.exitCode, null, 'the server is still running');
    const rssAfter = await rss();
    console.log(`fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    console.log(`fuzz: server RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB before, ${(rssAfter / 2 ** 20).toFixed(0)} MiB after`);
    assert.ok(rssAfter <= rssBefore * 1.2, `the server's memory grew by more than 20 %: ${rssBefore} -> ${rssAfter} bytes`);
  });
});
