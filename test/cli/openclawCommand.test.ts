import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../main/cli/main.js';
import type { Io } from '../../main/cli/io.js';
import { describeChanges, mergeConfig } from '../../main/cli/configMerge.js';
import { answerBudget, openClawProvider } from '../../main/server/openclawProvider.js';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

async function run(argv: string[]): Promise<{ code: number; out: string; log: string }> {
  let out = '';
  let log = '';
  const io: Io = { out: (t) => (out += t), log: (l) => (log += l + '\n') };
  return { code: await main(argv, io), out, log };
}

describe('the OpenClaw entry', () => {
  it("holds the model's real window, an answer budget, session headers, and the lean prompt for a small model", () => {
    const small = openClawProvider({ baseUrl: 'http://127.0.0.1:30000/v1', modelId: 'm', contextLength: 8192, apiKey: null }) as any;
    const model = small.models.providers.clawloop.models[0];
    assert.equal(model.contextWindow, 8192);
    assert.equal(model.maxTokens, 1024);
    assert.deepEqual(model.compat, { sendSessionAffinityHeaders: true });
    assert.equal(small.models.providers.clawloop.apiKey, 'clawloop-local', 'OpenClaw wants a key even when the server has none');
    assert.deepEqual(small.agents.defaults, { model: { primary: 'clawloop/m' }, skipBootstrap: true, skills: [] });
    assert.deepEqual(small.tools, { profile: 'minimal', toolSearch: false });
    const large = openClawProvider({ baseUrl: 'u', modelId: 'm', contextLength: 40960, apiKey: 'k' }) as any;
    assert.equal(large.tools, undefined, 'a model with room for the default prompt keeps OpenClaw as it is');
    assert.deepEqual(large.agents.defaults, { model: { primary: 'clawloop/m' } });
    assert.equal(answerBudget(1024), 256);
    assert.equal(answerBudget(131072), 4096);
  });

  it('merges objects key by key, replaces the rest, and reports each change with secrets hidden', () => {
    const config = { models: { providers: { other: { baseUrl: 'x' }, clawloop: { apiKey: 'old', models: [1, 2] } } }, theme: 'dark' };
    const entry = {
      models: { providers: { clawloop: { apiKey: 'new', models: [3] } } },
      agents: { defaults: { model: { primary: 'p' } } },
    };
    const { merged, changes } = mergeConfig(config, entry);
    assert.deepEqual(merged, {
      models: { providers: { other: { baseUrl: 'x' }, clawloop: { apiKey: 'new', models: [3] } } },
      theme: 'dark',
      agents: { defaults: { model: { primary: 'p' } } },
    });
    assert.deepEqual(config.models.providers.clawloop.models, [1, 2], 'the input is not changed');
    assert.deepEqual(describeChanges(changes), [
      '~ models.providers.clawloop.apiKey: (hidden) -> (hidden)',
      '~ models.providers.clawloop.models: [1,2] -> [3]',
      '+ agents: {"defaults":{"model":{"primary":"p"}}}',
    ]);
  });
});

describe('clawloop openclaw', () => {
  let t: TestServer;
  let dir: string;
  before(async () => {
    t = await startTestServer({ engine: new FakeEngine([]), options: { servedModelName: 'mini', apiKey: 'sekrit' } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-openclaw-'));
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("merges the served entry into OpenClaw's config, keeping a backup and the user's other settings", async () => {
    const file = path.join(dir, 'openclaw.json');
    const before = { models: { providers: { ollama: { baseUrl: 'http://127.0.0.1:11434' } } }, gateway: { port: 18789 } };
    fs.writeFileSync(file, JSON.stringify(before));
    const r = await run(['openclaw', '--url', t.origin, '--api-key', 'sekrit', '--config', file]);
    assert.equal(r.code, 0, r.log);
    const after = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(after.models.providers.ollama, before.models.providers.ollama);
    assert.equal(after.gateway.port, 18789);
    assert.equal(after.models.providers.clawloop.apiKey, 'sekrit');
    assert.equal(after.models.providers.clawloop.baseUrl, t.url);
    assert.equal(after.models.providers.clawloop.models[0].contextWindow, 4096);
    assert.equal(after.agents.defaults.model.primary, 'clawloop/mini');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the file holds a key: only its owner reads it');
    assert.match(r.out, /^\+ models\.providers\.clawloop: /m);
    assert.doesNotMatch(r.out, /sekrit/, 'the key is not printed');
    const backups = fs.readdirSync(dir).filter((f) => f.startsWith('openclaw.json.bak-'));
    assert.equal(backups.length, 1);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, backups[0]), 'utf8')), before);
    assert.match(r.log, /wrote \d+ change\(s\)/);

    const again = await run(['openclaw', '--url', t.origin, '--api-key', 'sekrit', '--config', file]);
    assert.equal(again.code, 0);
    assert.match(again.log, /nothing changed/);
  });

  it('--dry-run shows the changes and writes nothing; a missing file is created', async () => {
    const file = path.join(dir, 'fresh', 'openclaw.json');
    const dry = await run(['openclaw', '--url', t.origin, '--api-key', 'sekrit', '--config', file, '--dry-run']);
    assert.equal(dry.code, 0, dry.log);
    assert.match(dry.out, /^\+ models: /m);
    assert.equal(fs.existsSync(file), false);
    const real = await run(['openclaw', '--url', t.origin, '--api-key', 'sekrit', '--config', file]);
    assert.equal(real.code, 0, real.log);
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).models.mode, 'merge');
  });

  it('refuses what it cannot do, with what to do instead, and changes nothing', async () => {
    const file = path.join(dir, 'json5.json');
    fs.writeFileSync(file, '{ // my settings\n gateway: { port: 1 }, }\n');
    const r = await run(['openclaw', '--url', t.origin, '--api-key', 'sekrit', '--config', file]);
    assert.equal(r.code, 1);
    assert.match(r.log, /not plain JSON .*--print/s);
    assert.equal(fs.readFileSync(file, 'utf8'), '{ // my settings\n gateway: { port: 1 }, }\n');
    const noKey = await run(['openclaw', '--url', t.origin, '--config', file]);
    assert.equal(noKey.code, 1);
    assert.match(noKey.log, /wants an API key: pass --api-key/);
    const none = await run(['openclaw', '--data-dir', dir, '--config', file]);
    assert.match(none.log, /no ClawLoop is running on .*clawloop serve/);
    const printed = await run(['openclaw', '--url', t.origin, '--api-key', 'sekrit', '--print']);
    assert.equal(JSON.parse(printed.out).models.providers.clawloop.models[0].id, 'mini');
  });
});
