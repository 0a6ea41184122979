import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../main/cli/main.js';
import type { Io } from '../../main/cli/io.js';
import { openDatabase } from '../../main/store/database.js';

/** Issue 41, finding 10: `clawloop export --out` writes a file only its owner can read. */
describe('issue 41: export permissions', { skip: process.platform === 'win32' }, () => {
  it('10: clawloop export --out writes 0600, even under umask 022 and over an existing 0644 file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-export-mode-'));
    const before = process.umask(0o022);
    try {
      const io: Io = { out: () => {}, log: () => {} };
      fs.mkdirSync(path.join(dir, 'data'));
      openDatabase(path.join(dir, 'data', 'clawloop.db')).close();
      const fresh = path.join(dir, 'fresh.jsonl');
      assert.equal(await main(['export', '--data-dir', path.join(dir, 'data'), '--out', fresh], io), 0);
      assert.equal(fs.statSync(fresh).mode & 0o777, 0o600);
      const existing = path.join(dir, 'existing.jsonl');
      fs.writeFileSync(existing, 'old', { mode: 0o644 });
      assert.equal(await main(['export', '--data-dir', path.join(dir, 'data'), '--out', existing], io), 0);
      assert.equal(fs.statSync(existing).mode & 0o777, 0o600);
    } finally {
      process.umask(before);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
