/** Merging a JSON entry into a JSON config file's object, and saying what changed, for `clawloop openclaw`. */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** One change a merge made, at a dotted path. */
export interface ConfigChange {
  path: string;
  /** undefined: the path was added. */
  before?: Json;
  after: Json;
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Merges `entry` into `config` (neither is changed): objects merge key by key, anything else
 * (arrays included) replaces what was there. Returns the result and each value that changed.
 */
export function mergeConfig(config: JsonObject, entry: JsonObject): { merged: JsonObject; changes: ConfigChange[] } {
  const changes: ConfigChange[] = [];
  const merge = (base: JsonObject, add: JsonObject, at: string): JsonObject => {
    const out: JsonObject = { ...base };
    for (const [key, value] of Object.entries(add)) {
      const path = at ? `${at}.${key}` : key;
      const old = base[key];
      if (isObject(old) && isObject(value)) out[key] = merge(old, value, path);
      else {
        out[key] = value;
        if (JSON.stringify(old) !== JSON.stringify(value))
          changes.push(old === undefined ? { path, after: value } : { path, before: old, after: value });
      }
    }
    return out;
  };
  return { merged: merge(config, entry, ''), changes };
}

/** Values under this key are secrets: a diff says that they changed, not what they are. */
const SECRET_KEY = 'apiKey';

function redacted(v: Json): Json {
  if (Array.isArray(v)) return v.map(redacted);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === SECRET_KEY ? '(hidden)' : redacted(x)]));
}

function shown(path: string, v: Json): string {
  if (path === SECRET_KEY || path.endsWith(`.${SECRET_KEY}`)) return '(hidden)';
  const s = JSON.stringify(redacted(v));
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/** The changes as lines a person reads: `+ path: value` for an addition, `~ path: old -> new` for a change. */
export function describeChanges(changes: ConfigChange[]): string[] {
  return changes.map((c) =>
    c.before === undefined
      ? `+ ${c.path}: ${shown(c.path, c.after)}`
      : `~ ${c.path}: ${shown(c.path, c.before)} -> ${shown(c.path, c.after)}`,
  );
}
