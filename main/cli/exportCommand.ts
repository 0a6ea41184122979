import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../store/database.js';
import { exportSessions } from '../store/exportSessions.js';
import { TurnStore } from '../store/turnStore.js';
import { parse } from './args.js';
import { DB_FILE, resolveDataDir } from './dataDir.js';
import type { Io } from './io.js';

export const EXPORT_USAGE = `Usage: clawloop export [--data-dir DIR] [--out FILE]

Writes the recorded conversations as JSON Lines, one session per line:
{"session_id", "turns": [{"type": "main"|"side", "prompt", "response", "next_state", "trainable"}]}

  --data-dir DIR   ClawLoop's data folder (default: env CLAWLOOP_HOME, else ~/.clawloop)
  --out FILE       write here instead of standard output`;

export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, { 'data-dir': { type: 'string' }, out: { type: 'string' } });
  const dataDir = resolveDataDir(values['data-dir']);
  const file = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(file)) throw new Error(`no ClawLoop database at ${file}; start \`clawloop serve\` first, or pass --data-dir`);
  const db = openDatabase(file);
  try {
    const store = new TurnStore(db);
    let sessions = 0;
    let turns = 0;
    const lines: string[] = [];
    for (const s of exportSessions(store)) {
      lines.push(JSON.stringify(s));
      sessions++;
      turns += s.turns.length;
    }
    const text = lines.length ? lines.join('\n') + '\n' : '';
    if (values.out) {
      // Conversations are private: the file is its owner's alone, whatever the umask (an existing one too).
      fs.writeFileSync(values.out, text, { mode: 0o600 });
      if (process.platform !== 'win32') fs.chmodSync(values.out, 0o600);
      io.log(`wrote ${sessions} session(s), ${turns} turn(s) to ${values.out}`);
    } else {
      io.out(text);
    }
    return 0;
  } finally {
    db.close();
  }
}
