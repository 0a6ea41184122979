/** Where a command writes: results to `out` (stdout), messages to `log` (stderr). Tests capture both. */
export interface Io {
  out: (text: string) => void;
  log: (line: string) => void;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text),
  log: (line) => process.stderr.write(line + '\n'),
};
