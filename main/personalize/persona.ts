/**
 * Personas for `clawloop bench personalize`: a simulated user whose preferences are rules a
 * response can be checked against, and the phrases it answers with. Files are JSON:
 *
 *   {"name", "description", "task": "arithmetic" | "units" | "facts" | "grading" | "mixed",
 *    "max_turns_per_session": n,
 *    "rules": [{"id", "type", "pattern"?, "flags"?, "value"?}],
 *    "feedback": {"satisfied": [phrases], "violated": {"<rule id>": [phrases], "default": [phrases]}}}
 *
 * Rule types: absent / present (a regular expression must not / must match), max_sentences,
 * max_chars, min_chars (a number `value`), starts_with / ends_with (a regular expression `pattern`
 * anchored at the start / end, or a literal string `value`). Unknown fields are kept and reported.
 *
 * Optional: "prompts": {"train": [templates], "held_out": [templates]}, how the user phrases a
 * request around the task's question (`{question}` marks where it goes; default just the
 * question). The conversation uses `train` with the task generators' training phrasings; the
 * score is measured on new questions in the generators' held-out phrasings inside `held_out`
 * templates, so it shows whether the preference generalises to requests never used in training.
 * "split": "tune" (the personas a method may be tuned on; default) or "test" (written for the test
 * set only: never used to choose settings).
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { resourcePath } from '../resources.js';
import { TASK_FAMILIES, type TaskFamily } from '../tasks/taskFamilies.js';

export const RULE_TYPES = ['absent', 'present', 'max_sentences', 'max_chars', 'min_chars', 'starts_with', 'ends_with'] as const;
export type RuleType = (typeof RULE_TYPES)[number];
export const PERSONA_TASKS = [...TASK_FAMILIES, 'mixed'] as const;
export type PersonaTask = TaskFamily | 'mixed';

const Phrases = z.array(z.string().trim().min(1, 'phrases must not be empty')).min(1, 'needs at least one phrase');

const RuleSchema = z.looseObject({
  id: z.string().trim().min(1),
  type: z.enum(RULE_TYPES, { error: () => `must be one of ${RULE_TYPES.join(', ')}` }),
  pattern: z.string().optional(),
  flags: z
    .string()
    .regex(/^[imsu]*$/, 'flags may only use i, m, s and u')
    .optional(),
  value: z.union([z.number(), z.string()]).optional(),
});

const Templates = z
  .array(z.string().refine((t) => t.includes('{question}'), 'every template must contain {question}'))
  .min(1, 'needs at least one template');

const PersonaSchema = z.looseObject({
  name: z.string().trim().min(1),
  description: z.string().default(''),
  task: z.enum(PERSONA_TASKS, { error: () => `must be one of ${PERSONA_TASKS.join(', ')}` }),
  max_turns_per_session: z.number().int().min(1).max(20),
  rules: z.array(RuleSchema).min(1, 'a persona needs at least one rule'),
  feedback: z.object({
    satisfied: Phrases,
    violated: z.record(z.string(), Phrases),
  }),
  prompts: z.object({ train: Templates, held_out: Templates }).strict().optional(),
  split: z.enum(['tune', 'test']).default('tune'),
});

export interface Rule {
  id: string;
  type: RuleType;
  /** The compiled check: true when the response satisfies the rule. */
  test: (response: string) => boolean;
  /** The rule as written, for reports. */
  spec: { pattern?: string; flags?: string; value?: number | string };
}

export interface Persona {
  name: string;
  description: string;
  task: PersonaTask;
  maxTurnsPerSession: number;
  rules: Rule[];
  satisfied: string[];
  /** Phrases per rule id, plus `default` for rules without their own. */
  violated: Record<string, string[]>;
  /** How requests are phrased around a question (`{question}`): in the conversation, and when measuring. */
  prompts: { train: string[]; heldOut: string[] };
  /** 'test': written for the test set only, never used to choose settings. */
  split: 'tune' | 'test';
  /** Where it was read from. */
  file: string;
  /** Fields the schema does not know (kept, reported once). */
  unknownFields: string[];
}

export class PersonaError extends Error {
  override name = 'PersonaError';
}

/** Sentences: split after . ! ? (or …) followed by space, and at line breaks. */
export function countSentences(text: string): number {
  return text
    .trim()
    .split(/(?<=[.!?…])\s+|\n+/)
    .filter((s) => /[\p{L}\p{N}]/u.test(s)).length;
}

function compileRule(raw: z.infer<typeof RuleSchema>, where: string): Rule {
  const fail = (msg: string): never => {
    throw new PersonaError(`${where} (rule '${raw.id}', ${raw.type}): ${msg}`);
  };
  const regex = (source: string, anchor: '' | 'start' | 'end'): RegExp => {
    const body = anchor === 'start' ? `^(?:${source})` : anchor === 'end' ? `(?:${source})$` : source;
    try {
      return new RegExp(body, raw.flags ?? '');
    } catch (err) {
      return fail(`pattern is not a valid regular expression: ${(err as Error).message}`);
    }
  };
  const num = (): number => {
    if (typeof raw.value !== 'number' || !Number.isInteger(raw.value) || raw.value < 0) fail('needs "value": a whole number >= 0');
    return raw.value as number;
  };
  const spec = { pattern: raw.pattern, flags: raw.flags, value: raw.value };
  let test: (s: string) => boolean;
  switch (raw.type) {
    case 'absent':
    case 'present': {
      if (!raw.pattern) fail('needs "pattern": a regular expression');
      const re = regex(raw.pattern!, '');
      test = raw.type === 'absent' ? (s) => !re.test(s) : (s) => re.test(s);
      break;
    }
    case 'max_sentences': {
      const n = num();
      test = (s) => countSentences(s) <= n;
      break;
    }
    case 'max_chars': {
      const n = num();
      test = (s) => s.trim().length <= n;
      break;
    }
    case 'min_chars': {
      const n = num();
      test = (s) => s.trim().length >= n;
      break;
    }
    case 'starts_with':
    case 'ends_with': {
      const start = raw.type === 'starts_with';
      if (raw.pattern !== undefined) {
        const re = regex(raw.pattern, start ? 'start' : 'end');
        test = (s) => re.test(s.trim());
      } else if (typeof raw.value === 'string' && raw.value) {
        const lit = raw.flags?.includes('i') ? raw.value.toLowerCase() : raw.value;
        const norm = (s: string) => (raw.flags?.includes('i') ? s.trim().toLowerCase() : s.trim());
        test = start ? (s) => norm(s).startsWith(lit) : (s) => norm(s).endsWith(lit);
      } else {
        return fail('needs "pattern" (a regular expression) or "value" (a literal string)');
      }
      break;
    }
  }
  return { id: raw.id, type: raw.type, test, spec };
}

/** Validates a parsed persona file; errors say which field is wrong and what is expected. */
export function parsePersona(json: unknown, file: string): Persona {
  const r = PersonaSchema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    const at = i.path.length
      ? i.path
          .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
          .join('')
          .replace(/^\./, '')
      : 'the file';
    throw new PersonaError(`persona ${file}: ${at}: ${i.message}`);
  }
  const p = r.data;
  const ids = new Set<string>();
  const rules = p.rules.map((raw, k) => {
    if (ids.has(raw.id)) throw new PersonaError(`persona ${file}: rules[${k}]: the id '${raw.id}' is used twice`);
    ids.add(raw.id);
    return compileRule(raw, `persona ${file}: rules[${k}]`);
  });
  for (const key of Object.keys(p.feedback.violated)) {
    if (key !== 'default' && !ids.has(key))
      throw new PersonaError(
        `persona ${file}: feedback.violated.${key}: no rule has this id (rules: ${[...ids].join(', ')}; or use "default")`,
      );
  }
  const missing = rules.filter((rule) => !p.feedback.violated[rule.id]).map((rule) => rule.id);
  if (missing.length && !p.feedback.violated.default)
    throw new PersonaError(`persona ${file}: feedback.violated has no phrases for ${missing.join(', ')} and no "default" list`);
  const known = new Set(['name', 'description', 'task', 'max_turns_per_session', 'rules', 'feedback', 'prompts', 'split']);
  const knownRule = new Set(['id', 'type', 'pattern', 'flags', 'value']);
  const unknownFields = [
    ...Object.keys(p).filter((k) => !known.has(k)),
    ...p.rules.flatMap((rule, k) =>
      Object.keys(rule)
        .filter((key) => !knownRule.has(key))
        .map((key) => `rules[${k}].${key}`),
    ),
  ];
  return {
    name: p.name,
    description: p.description,
    task: p.task,
    maxTurnsPerSession: p.max_turns_per_session,
    rules,
    satisfied: p.feedback.satisfied,
    violated: p.feedback.violated,
    prompts: { train: p.prompts?.train ?? ['{question}'], heldOut: p.prompts?.held_out ?? ['{question}'] },
    split: p.split,
    file,
    unknownFields,
  };
}

/** The personas shipped in resources/personas/, by name. */
export function shippedPersonas(): string[] {
  const dir = resourcePath('personas');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

/**
 * The blind test set (resources/personas/blind/, issue 38): personas written by someone who never
 * saw the project's data, generators or judges. Nothing lists them but this function, and only the
 * benchmark calls it, when asked (`--personas blind`): they must never train or tune anything.
 * Loaded by name as `blind/<name>`.
 */
export const BLIND_SET = 'blind';

/** The blind set's persona names (`blind/<name>`); its first-messages.json is not a persona. */
export function blindPersonas(): string[] {
  const dir = resourcePath('personas', BLIND_SET);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'first-messages.json')
    .map((f) => `${BLIND_SET}/${f.slice(0, -5)}`)
    .sort();
}

/**
 * A comma-separated persona list as the benchmark takes it: names, files, `shipped` (every shipped
 * persona) or `blind` (the blind set), in order, without repeats.
 */
export function personaList(spec: string): string[] {
  const out = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .flatMap((s) => (s === BLIND_SET ? blindPersonas() : s === 'shipped' ? shippedPersonas() : [s]));
  return [...new Set(out)];
}

/** Loads a persona from a file path, or a shipped persona by name (`blind/<name>` for the blind set). */
export function loadPersona(fileOrName: string): Persona {
  let file = fileOrName;
  if (!fs.existsSync(file)) {
    const shipped = resourcePath('personas', `${fileOrName.replace(/\.json$/, '')}.json`);
    if (!fs.existsSync(shipped))
      throw new PersonaError(
        `no persona file '${fileOrName}' and no shipped persona of that name (shipped: ${shippedPersonas().join(', ') || 'none'})`,
      );
    file = shipped;
  }
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new PersonaError(`persona ${file}: not valid JSON (${(err as Error).message})`);
  }
  return parsePersona(json, path.basename(file));
}

/** Checks a response against every rule; `violated` is the first rule that fails (the one the user complains about). */
export function checkResponse(persona: Persona, response: string): { ok: boolean; violated: string | null; failed: string[] } {
  const failed = persona.rules.filter((r) => !r.test(response)).map((r) => r.id);
  return { ok: failed.length === 0, violated: failed[0] ?? null, failed };
}
