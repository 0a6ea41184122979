import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes a file so that a crash leaves either the old content or the new one, never a torn mix:
 * write a temporary sibling, fsync it, rename it over the target, fsync the directory.
 */
export function atomicWriteFileSync(file: string, write: (fd: number) => void, mode = 0o666): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    write(fd);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  fsyncDir(dir);
}

/** Writes a whole string or buffer atomically; `mode` 0o600 keeps it readable by its owner only. */
export function atomicWriteFile(file: string, data: string | Uint8Array, mode?: number): void {
  atomicWriteFileSync(
    file,
    (fd) => {
      const buf = typeof data === 'string' ? Buffer.from(data) : data;
      writeAll(fd, buf);
    },
    mode,
  );
}

/** Writes every byte of `buf` at the current position (writeSync may write less than asked). */
export function writeAll(fd: number, buf: Uint8Array): void {
  let off = 0;
  while (off < buf.byteLength) off += fs.writeSync(fd, buf, off, Math.min(buf.byteLength - off, 1 << 30));
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems (and Windows) refuse fsync on a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
