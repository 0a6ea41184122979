import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * `parseArgs` for the dev scripts (benchmarks, training, evaluation): `--help` prints the script's
 * usage and exits; an unknown or malformed option prints what was wrong and the usage and exits
 * with status 2, instead of a stack trace.
 */
export function scriptArgs<T extends ParseArgsConfig>(usage: string, config: T) {
  if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (err) {
    if (!String((err as NodeJS.ErrnoException).code ?? '').startsWith('ERR_PARSE_ARGS')) throw err;
    console.error(`${(err as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}
