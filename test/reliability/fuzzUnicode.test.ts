import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { ApiErrorBodySchema } from '../../main/protocol/openai.js';
import { storedTurn } from '../helpers/ratedTurn.js';
import { modelDir } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

/** Cases per route; the seed is fixed so a failure replays. */
const CASES = Number(process.env.CLAWLOOP_FUZZ_UNICODE_CASES ?? 300);
const SEED = Number(process.env.CLAWLOOP_FUZZ_SEED ?? 20261127);

/**
 * Long and odd Unicode: bidi overrides and isolates, zero-width and joiners, combining marks, lone
 * surrogates, NUL and C1 controls, line and paragraph separators, astral characters, and lengths
 * around the limits (255-byte names, 256-character ids, 4,000-character hints, 20 k characters).
 */
const oddPiece = fc.constantFrom(
  '\u202e',
  '\u2066',
  '\u2069',
  '\u200b',
  '\u200d',
  '\u061c',
  '\ufeff',
  '\u0301',
  '\ud800',
  '\udfff',
  '\u0000',
  '\u0085',
  '\u2028',
  '\u2029',
  '𝕏',
  '👩‍👩‍👧',
  'é',
  'ﷺ',
  '<|im_start|>',
  '..',
  '/',
  '%00',
);
const oddString = fc.oneof(
  fc.array(fc.oneof(oddPiece, fc.string({ unit: 'grapheme', maxLength: 8 })), { maxLength: 40 }).map((a) => a.join('')),
  fc.string({ unit: 'binary', minLength: 200, maxLength: 600 }),
  fc.tuple(oddPiece, fc.integer({ min: 120, max: 300 })).map(([p, n]) => p.repeat(n)),
  fc
    .tuple(fc.constantFrom('a', 'é', '字', '😀'), fc.constantFrom(85, 127, 128, 200, 255, 256, 3999, 4000, 4001, 20_000))
    .map(([c, n]) => c.repeat(n)),
);

/** A UTF-16 surrogate without its pair: SQLite stores text as UTF-8, which cannot hold one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Every UTF-8 byte of `s` %-escaped (encodeURIComponent throws on a lone surrogate; this sends U+FFFD). */
const percentEncoded = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const statuses = new Map<number, number>();
let requests = 0;

/** Checks one answer: never a 5xx the API does not declare, every error in OpenAI's envelope. */
async function check(res: Response, what: string): Promise<string> {
  requests++;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const text = await res.text();
  assert.ok(res.status < 500 || res.status === 503 || res.status === 507, `${what} answered ${res.status}: ${text.slice(0, 300)}`);
  if (res.status >= 400) assert.ok(ApiErrorBodySchema.safeParse(JSON.parse(text)).success, `${what}: ${text.slice(0, 200)}`);
  return text;
}

/** Issue 41, must-be-true 5: the routes the second probe reached, fed long and odd Unicode. */
describe(`fuzz: long and odd Unicode into events, settings, export and feedback (${CASES} cases each, seed ${SEED})`, () => {
  let t: TestServer;
  const allowed = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-fuzz-allowed-'));
  const send = (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.origin}${p}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  before(async () => {
    t = await startTestServer({ options: { exportDirs: [allowed] } });
    // A recorded turn to give feedback on, and a checkpoint to export (the fixture's adapter).
    const ep = t.store.openSession('fuzz', Date.now());
    t.store.insertTurn(storedTurn({ id: 'chatcmpl-fuzz', sessionId: 'fuzz' }), ep);
    fs.cpSync(path.join(modelDir('qwen3-qknorm'), 'adapter'), path.join(t.dataDir, 'checkpoints', 'step-000001'), { recursive: true });
    t.db
      .prepare(
        "INSERT INTO checkpoints (id, step, adapter_version, parent_id, created_at, metrics, samples, lora, gate_pending) VALUES ('step-000001', 1, 1, NULL, 0, '{}', '[]', '{}', 0)",
      )
      .run();
  });
  after(async () => {
    await t.close();
    fs.rmSync(allowed, { recursive: true, force: true });
    console.log(
      `fuzz unicode: ${requests} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`,
    );
  });

  it('GET and HEAD /api/events with odd ?since= and Last-Event-ID: a stream or a 4xx, and every stream gives its slot back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(oddString, fc.constantFrom('0', '-1', '1e308', '99999999999999999999', 'NaN')),
        oddString,
        fc.boolean(),
        async (since, lastId, head) => {
          const ctl = new AbortController();
          const headers: Record<string, string> = {};
          if (/^[\t\x20-\x7e\x80-\xff]*$/.test(lastId)) headers['last-event-id'] = lastId; // what a header can carry
          const res = await fetch(`${t.origin}/api/events?since=${percentEncoded(since)}`, {
            method: head ? 'HEAD' : 'GET',
            headers,
            signal: ctl.signal,
          });
          requests++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          assert.notEqual(res.status, 429, 'a slot was not given back');
          assert.ok(res.status < 500, `events answered ${res.status}`);
          if (res.status === 200 && !head) {
            const reader = res.body!.getReader();
            await reader.read();
            ctl.abort();
            await reader.cancel().catch(() => {});
          } else await res.text();
        },
      ),
      { numRuns: CASES, seed: SEED },
    );
  });

  it('PUT /api/settings with odd model folders and backends: 400 that names the field, the settings unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(oddString, fc.oneof(oddString, fc.constant(null)), async (model_dir, backend) => {
        const res = await send('PUT', '/api/settings', { model_dir, backend });
        await check(res, `PUT /api/settings ${JSON.stringify(model_dir).slice(0, 60)}`);
        assert.equal(res.status, 400);
      }),
      { numRuns: CASES, seed: SEED },
    );
    const now = JSON.parse(await check(await send('GET', '/api/settings'), 'GET /api/settings')) as { model_dir: string | null };
    assert.equal(now.model_dir, null);
  });

  it('POST /api/checkpoints/{id}/export with odd folder names: written inside the allowed folders, or a 4xx', async () => {
    const roots = [path.join(fs.realpathSync(t.dataDir), 'exports'), fs.realpathSync(allowed)];
    await fc.assert(
      fc.asyncProperty(oddString, fc.boolean(), async (name, absolute) => {
        const dir = absolute ? `${allowed}/${name}` : name;
        const res = await send('POST', '/api/checkpoints/step-000001/export', { dir, format: 'peft' });
        const text = await check(res, `export into ${JSON.stringify(dir).slice(0, 80)}`);
        if (res.status !== 200) return;
        const out = JSON.parse(text) as { dir: string };
        assert.ok(
          roots.some((r) => out.dir.startsWith(`${r}${path.sep}`)),
          `${out.dir} is outside the allowed folders`,
        );
        fs.rmSync(out.dir, { recursive: true, force: true });
      }),
      { numRuns: CASES, seed: SEED },
    );
    const exportsDir = path.join(t.dataDir, 'exports');
    const left = [exportsDir, allowed].flatMap((d) =>
      (fs.readdirSync(d, { recursive: true }) as string[]).filter((p) => p.includes('.clawloop-tmp-')),
    );
    assert.deepEqual(left, [], 'no temporary left behind');
  });

  it('GET /api/export/sessions.jsonl with odd filters: JSON Lines or a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(oddString, oddString, async (session, text) => {
        const q = new URLSearchParams({ session_id: session, text });
        await check(await send('GET', `/api/export/sessions.jsonl?${q}`), 'sessions.jsonl');
      }),
      { numRuns: CASES, seed: SEED },
    );
  });

  it('POST /v1/feedback with odd hints and ids: stored as sent (trimmed, well-formed text) or a 4xx that says why', async () => {
    await fc.assert(
      fc.asyncProperty(oddString, fc.boolean(), fc.constantFrom('up', 'down', null), async (hint, realId, rating) => {
        const completion_id = realId ? 'chatcmpl-fuzz' : hint.slice(0, 300) || 'x';
        const res = await send('POST', '/v1/feedback', { completion_id, rating, hint });
        const text = await check(res, `feedback hint of ${hint.length} characters`);
        // Hints are stored trimmed; a blank one is no hint (null).
        if (res.status === 200 && !LONE_SURROGATE.test(hint))
          assert.equal((JSON.parse(text) as { hint: string | null }).hint, hint.trim() || null);
      }),
      { numRuns: CASES, seed: SEED },
    );
  });

  it('the server is alive and its event stream slots are free', async () => {
    assert.equal((await send('GET', '/healthz')).status, 200);
    const ctl = new AbortController();
    const res = await fetch(`${t.origin}/api/events`, { signal: ctl.signal });
    assert.equal(res.status, 200);
    ctl.abort();
  });
});
