import { ApiError } from './apiError.js';

/** SQLite or the file system ran out of space. */
export function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || /database or disk is full/i.test(String((err as Error)?.message))
  );
}

/**
 * A failure to write the data folder as the client should see it: 507 with a sentence that says
 * the disk is full and where, or the error itself. Everything resumes once space is back.
 */
export function storageError(err: unknown, dataDir: string): unknown {
  if (!isDiskFull(err)) return err;
  return new ApiError(
    507,
    `the disk holding ${dataDir} is full, so nothing could be recorded; free some space there and try again`,
    'server_error',
    'insufficient_storage',
  );
}
