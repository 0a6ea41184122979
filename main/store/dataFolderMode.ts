import fs from 'node:fs';
import path from 'node:path';

/**
 * Makes the data folder its owner's alone: the folder and every folder in it 0700, every file
 * 0600, including a folder made by an older ClawLoop with 0755 (whose exports/ and checkpoints/
 * other users of the machine could read). A data folder that is itself a symbolic link (say
 * `~/.clawloop → /bigdisk/clawloop`) is the folder it points to: that folder and its contents are
 * secured. Links inside it are left alone and not followed. Returns how many entries were changed.
 */
export function secureDataFolder(dataDir: string): number {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return 0; // modes mean little there; the profile folder is private
  const real = fs.realpathSync(dataDir);
  return secure(real, fs.lstatSync(real));
}

function secure(p: string, st: fs.Stats): number {
  if (st.isSymbolicLink()) return 0;
  const want = st.isDirectory() ? 0o700 : 0o600;
  let changed = 0;
  if ((st.mode & 0o777 & ~want) !== 0 || (st.isDirectory() && (st.mode & 0o700) !== 0o700)) {
    fs.chmodSync(p, want);
    changed++;
  }
  if (!st.isDirectory()) return changed;
  for (const name of fs.readdirSync(p)) {
    const child = path.join(p, name);
    try {
      changed += secure(child, fs.lstatSync(child));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // removed meanwhile
    }
  }
  return changed;
}
