import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeEngine } from '../helpers/fakeEngine.js';
import { modelDir } from '../helpers/paths.js';
import { api, startTestServer, type TestServer } from '../helpers/testServer.js';

type Err = { error: { message: string; code: string; param: string | null } };

/** A copy of the fixture model in `dir`, each file a link to `linkTo(name)` when that gives a path. */
function modelCopy(dir: string, linkTo: (name: string) => string | null = () => null): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(modelDir('qwen3-qknorm'))) {
    const src = path.join(modelDir('qwen3-qknorm'), f);
    if (!fs.statSync(src).isFile()) continue;
    const target = linkTo(f);
    if (target) fs.symlinkSync(target, path.join(dir, f));
    else fs.copyFileSync(src, path.join(dir, f));
  }
  return dir;
}

/** Issue 41, must-be-true 2: choosing a model folder never reveals a file outside it. */
describe('issue 41: a model folder chosen through the API does not follow links out of it', { skip: process.platform === 'win32' }, () => {
  let t: TestServer;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-links-'));
  const secret = path.join(root, 'secret.txt');
  const jsonSecret = path.join(root, 'secret.json');
  before(async () => {
    fs.writeFileSync(secret, 'TOPSECRET-password-hunter2\n');
    fs.writeFileSync(jsonSecret, JSON.stringify({ model_type: 'TOPSECRET-json', token: 'TOPSECRET-2' }));
    t = await startTestServer({ engine: new FakeEngine([]) });
  });
  after(async () => {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const choose = (model_dir: string) => api<Err & { model_dir: string }>(t, 'PUT', '/api/settings', { model_dir });

  it('3: config.json or tokenizer.json linked to a file outside is a 400 naming the file, never quoting it', async () => {
    const cases: Array<[string, string]> = [
      ['config.json', secret],
      ['tokenizer.json', secret],
      ['tokenizer_config.json', jsonSecret],
      ['config.json', jsonSecret],
    ];
    for (const [i, [name, target]] of cases.entries()) {
      const dir = modelCopy(path.join(root, `m${i}`), (f) => (f === name ? target : null));
      const r = await choose(dir);
      assert.equal(r.status, 400, `${name} -> ${target}`);
      assert.equal(r.body.error.param, 'model_dir');
      assert.ok(r.body.error.message.includes(path.join(fs.realpathSync(dir), name)), r.body.error.message);
      assert.match(r.body.error.message, /link to a file outside the model folder/);
      assert.ok(!r.body.error.message.includes('TOPSECRET'), r.body.error.message);
    }
    assert.equal((await api<{ model_dir: string | null }>(t, 'GET', '/api/settings')).body.model_dir, null, 'nothing was stored');
  });

  it('3: a judge folder with such a link is refused the same way', async () => {
    const dir = modelCopy(path.join(root, 'judge'), (f) => (f === 'config.json' ? secret : null));
    const r = await api<Err>(t, 'PUT', '/api/training/config', { judge: { kind: 'model', dir } });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.param, 'judge');
    assert.ok(!r.body.error.message.includes('TOPSECRET'));
  });

  it('a Hugging Face cache snapshot (links into its blobs/) and links inside the folder are fine', async () => {
    const repo = path.join(root, 'hub', 'models--org--tiny');
    const blobs = path.join(repo, 'blobs');
    modelCopy(blobs);
    const snapshot = modelCopy(path.join(repo, 'snapshots', 'abc123'), (f) => path.join('..', '..', 'blobs', f));
    const r = await choose(snapshot);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const inner = modelCopy(path.join(root, 'inner'), (f) => (f === 'config.json' ? 'real-config.json' : null));
    fs.copyFileSync(path.join(modelDir('qwen3-qknorm'), 'config.json'), path.join(inner, 'real-config.json'));
    assert.equal((await choose(inner)).status, 200);
  });
});
