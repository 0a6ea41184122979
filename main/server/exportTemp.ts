import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from './apiError.js';

/**
 * Names of export temporaries begin with this. exportTarget refuses folder names that do, so no
 * export a user asks for can be mistaken for one, and the random part keeps two apart.
 */
export const EXPORT_TEMP_PREFIX = '.clawloop-tmp-';
const TEMP_NAME = /^\.clawloop-tmp-[0-9a-f]{16}$/;

/**
 * `<data dir>/unfinished-exports/`: one file per export under way, naming its temporary folder, so a
 * kill leaves a list of what to remove wherever the export was going (a nested folder, or under
 * --export-dir) and nothing else is ever removed. It exists only while an export is under way (or
 * after a kill, until the next start).
 */
export const EXPORT_JOURNAL_DIR = 'unfinished-exports';

/**
 * Writes an export into a temporary sibling of `target` and renames it into place, so a crash or
 * a kill mid-export never leaves a half-written folder under the name the user asked for; the
 * temporary is listed in the data folder's journal until it is gone. `write` fills the folder it
 * is given and returns the names of the files it wrote.
 */
export async function writeExport(
  dataDir: string,
  target: string,
  write: (dir: string) => Promise<string[]> | string[],
): Promise<string[]> {
  const journal = path.join(dataDir, EXPORT_JOURNAL_DIR);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const { tmp, entry } = newTemp(journal, path.dirname(target));
  try {
    const names = await write(tmp);
    // Never removes a user's files: the target was empty or absent when the export was accepted,
    // and rmdir refuses a folder someone filled meanwhile (ENOTEMPTY).
    if (fs.existsSync(target)) emptyFolderGone(target);
    fs.renameSync(tmp, target);
    return names.map((n) => path.join(target, n));
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    fs.rmSync(entry, { force: true });
    removeIfEmpty(journal);
  }
}

/** Removes the journal folder once no export is listed in it (another under way keeps it). */
function removeIfEmpty(journal: string): void {
  try {
    fs.rmdirSync(journal);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw err;
  }
}

/** Removes the empty folder `target`; a 409 when something was put there meanwhile. */
function emptyFolderGone(target: string): void {
  try {
    fs.rmdirSync(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR') throw err;
    throw new ApiError(
      409,
      `${target} was filled while the export was written, so the export was discarded; choose another folder`,
      'invalid_request_error',
      'invalid_export_dir',
      'dir',
    );
  }
}

/** Writes a journal entry, making the journal folder when it is absent (the last export to finish removes it). */
function writeEntry(journal: string, entry: string, tmp: string): void {
  for (;;) {
    try {
      fs.writeFileSync(entry, JSON.stringify({ tmp }) + '\n', { flag: 'wx' });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      fs.mkdirSync(journal, { recursive: true });
    }
  }
}

/** A new temporary folder in `parent`, listed in the journal before it exists. */
function newTemp(journal: string, parent: string): { tmp: string; entry: string } {
  for (;;) {
    const id = crypto.randomBytes(8).toString('hex');
    const tmp = path.join(parent, `${EXPORT_TEMP_PREFIX}${id}`);
    const entry = path.join(journal, `${id}.json`);
    writeEntry(journal, entry, tmp);
    try {
      fs.mkdirSync(tmp); // not recursive: EEXIST rather than sharing a folder
      return { tmp, entry };
    } catch (err) {
      fs.rmSync(entry, { force: true });
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/**
 * Removes the temporaries of exports a kill interrupted, as the journal lists them; returns how
 * many. Only folders with a temporary's name are removed, whatever the journal says.
 */
export function cleanupExportTemp(dataDir: string): number {
  const journal = path.join(dataDir, EXPORT_JOURNAL_DIR);
  if (!fs.existsSync(journal)) return 0;
  let removed = 0;
  for (const name of fs.readdirSync(journal)) {
    const entry = path.join(journal, name);
    const tmp = tempOf(entry);
    if (tmp && fs.existsSync(tmp)) {
      fs.rmSync(tmp, { recursive: true, force: true });
      removed++;
    }
    fs.rmSync(entry, { force: true });
  }
  removeIfEmpty(journal);
  return removed;
}

/** The temporary folder a journal entry names, or null when the entry is not one ClawLoop wrote. */
function tempOf(entry: string): string | null {
  try {
    const { tmp } = JSON.parse(fs.readFileSync(entry, 'utf8')) as { tmp?: unknown };
    return typeof tmp === 'string' && path.isAbsolute(tmp) && TEMP_NAME.test(path.basename(tmp)) ? tmp : null;
  } catch {
    return null; // cut short by the kill: written before its folder existed, so there is nothing to remove
  }
}
