import type { ServerResponse } from 'node:http';

/** Resolves when `res` has drained what it buffered (write() returned false), or closed. */
export function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
