import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in how a command was called: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses `argv` strictly; unknown flags and missing values become UsageErrors. */
export function parse<O extends Options>(argv: string[], options: O): ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** A number flag, validated against a range. */
export function numberFlag(
  value: string | undefined,
  flag: string,
  opts: { min?: number; max?: number; integer?: boolean } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const { min = -Infinity, max = Infinity, integer = false } = opts;
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    const kind = integer ? 'an integer' : 'a number';
    const range = `${min === -Infinity ? '' : ` >= ${min}`}${max === Infinity ? '' : `${min === -Infinity ? '' : ' and'} <= ${max}`}`;
    throw new UsageError(`${flag} must be ${kind}${range}; got '${value}'`);
  }
  return n;
}
