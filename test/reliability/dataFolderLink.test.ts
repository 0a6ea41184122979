import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { modelDir } from '../helpers/paths.js';
import { startServe } from '../helpers/serveProcess.js';

const mode = (p: string) => fs.statSync(p).mode & 0o777;

/**
 * Issue 41's second probe, NEW-4: a data folder that is a symbolic link (`~/.clawloop →
 * /bigdisk/clawloop`, a common setup) was never made private, so an export an older version wrote
 * with 0644 stayed readable by every user. The folder the link points to gets the 0700/0600 rules.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-linked-data-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

it(
  'NEW-4: a symlinked data folder is made private: the folder it points to and all in it',
  { skip: process.platform === 'win32' },
  async () => {
    const real = path.join(root, 'real');
    fs.mkdirSync(path.join(real, 'exports'), { recursive: true });
    fs.writeFileSync(path.join(real, 'exports', 'old-export.jsonl'), 'conv\n');
    fs.chmodSync(path.join(real, 'exports', 'old-export.jsonl'), 0o644);
    fs.chmodSync(path.join(real, 'exports'), 0o755);
    fs.chmodSync(real, 0o755);
    const outside = path.join(root, 'outside.txt');
    fs.writeFileSync(outside, 'not ClawLoop’s\n');
    fs.chmodSync(outside, 0o644);
    fs.symlinkSync(outside, path.join(real, 'a-link')); // a link inside is still not followed
    const link = path.join(root, 'link');
    fs.symlinkSync(real, link);

    const t = await startServe(modelDir('qwen3-qknorm'), link, ['--train-method', 'off'], { defaultAuth: true });
    t.child.kill('SIGKILL');
    assert.equal(mode(real), 0o700);
    assert.equal(mode(path.join(real, 'exports')), 0o700);
    assert.equal(mode(path.join(real, 'exports', 'old-export.jsonl')), 0o600);
    assert.equal(mode(path.join(real, 'api-key')), 0o600);
    assert.equal(mode(outside), 0o644, 'a link inside the folder was followed');
  },
);
