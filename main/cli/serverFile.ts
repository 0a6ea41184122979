import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFile } from '../util/atomicWrite.js';

/** `<data dir>/server.json`: tells shell commands that a server is using the data folder, and where. */
export interface ServerFile {
  pid: number;
  url: string;
  started_at: number;
}

const FILE = 'server.json';

export function writeServerFile(dataDir: string, info: ServerFile): void {
  atomicWriteFile(path.join(dataDir, FILE), JSON.stringify(info) + '\n');
}

export function removeServerFile(dataDir: string): void {
  fs.rmSync(path.join(dataDir, FILE), { force: true });
}

/** The running server of a data folder, or null (no file, or its process is gone). */
export function runningServer(dataDir: string): ServerFile | null {
  let info: ServerFile;
  try {
    info = JSON.parse(fs.readFileSync(path.join(dataDir, FILE), 'utf8'));
  } catch {
    return null;
  }
  try {
    process.kill(info.pid, 0);
    return info;
  } catch {
    return null; // stale file of a process that died (e.g. killed)
  }
}
