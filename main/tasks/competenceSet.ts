/**
 * A model's competence set: held-out prompts with checkable answers, read from
 * `clawloop_competence.jsonl` in the model folder. The competence gate answers them with each new
 * checkpoint before it may go live, and the personalization benchmark measures accuracy on them.
 * They are never trained on and never shown to the judge.
 *
 * One JSON object per line:
 *
 *   {"prompt": "How many minutes are in 3 hours?", "check": {"type": "last_number", "value": 180}}
 *   {"messages": [{"role": "system", "content": "…"}, {"role": "user", "content": "…"}],
 *    "check": {…}, "family": "units", "id": "units-17"}
 *
 * `prompt` is a single user message; `messages` a whole conversation (the model answers the last
 * user message). `family` (optional) groups prompts: a check's sample gives each family its share
 * of the set (competenceSample); `id` (optional) names the prompt.
 * The checks are described in competenceCheck.ts. Blank lines and lines starting with `//` are
 * skipped.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CompetenceCheckSchema, runCheck, validateCheckPatterns, type CompetenceCheck } from './competenceCheck.js';
import { Rng } from '../util/random.js';

export const COMPETENCE_FILE = 'clawloop_competence.jsonl';

const Message = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }).strict();

const ItemSchema = z
  .object({
    id: z.string().min(1).optional(),
    family: z.string().min(1).optional(),
    prompt: z.string().min(1).optional(),
    messages: z.array(Message).min(1).optional(),
    check: CompetenceCheckSchema,
  })
  .strict()
  .refine((x) => (x.prompt === undefined) !== (x.messages === undefined), 'give exactly one of "prompt" and "messages"')
  .refine((x) => !x.messages || x.messages.at(-1)!.role === 'user', 'the last of "messages" must be a user message');

export interface CompetenceItem {
  id: string;
  family: string | null;
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  check: CompetenceCheck;
}

export interface CompetenceSet {
  /** Where it was read from. */
  file: string;
  items: CompetenceItem[];
  /** sha256 of the file's bytes (first 16 hex digits): verdicts are compared only within one set. */
  hash: string;
}

export class CompetenceSetError extends Error {
  override name = 'CompetenceSetError';
}

/** Parses the text of a competence file; errors name the line and the field. */
export function parseCompetenceSet(text: string, file: string): CompetenceSet {
  const items: CompetenceItem[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('//')) return;
    const where = `${file}:${i + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      throw new CompetenceSetError(`${where}: not valid JSON (${(err as Error).message})`);
    }
    const r = ItemSchema.safeParse(json);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new CompetenceSetError(`${where}: ${issue.path.map(String).join('.') || 'the line'}: ${issue.message}`);
    }
    try {
      validateCheckPatterns(r.data.check);
    } catch (err) {
      throw new CompetenceSetError(`${where}: ${(err as Error).message}`);
    }
    const d = r.data;
    items.push({
      id: d.id ?? `line-${i + 1}`,
      family: d.family ?? null,
      messages: d.messages ?? [{ role: 'user', content: d.prompt! }],
      check: d.check,
    });
  });
  if (!items.length) throw new CompetenceSetError(`${file}: holds no prompts`);
  return { file, items, hash: createHash('sha256').update(text).digest('hex').slice(0, 16) };
}

/** The model folder's competence set, or null when it ships none. */
export function loadCompetenceSet(modelDir: string): CompetenceSet | null {
  const file = path.join(modelDir, COMPETENCE_FILE);
  if (!fs.existsSync(file)) return null;
  return parseCompetenceSet(fs.readFileSync(file, 'utf8'), file);
}

/** The questions of a competence set (each item's last message): what training and the simulated users must never ask. */
export function competenceQuestions(items: readonly CompetenceItem[]): Set<string> {
  return new Set(items.map((it) => it.messages.at(-1)!.content));
}

/**
 * The `n` prompts a check uses: always the same ones for a set (a fixed shuffle), so that every
 * checkpoint is compared with the others on the same prompts. With greedy decoding, two policies
 * that answer a prompt alike score it alike, and the difference in accuracy is the policies',
 * not sampling noise. Each family has its share of the set in the sample (the family furthest
 * below its share of the next place takes it, ties in name order), so the sample's accuracy
 * estimates the whole set's: with equal turns, a sample of 96 of the bundled set's 240 prompts
 * had a quarter arithmetic against 35 % in the set, and a policy that lost its sums on the other
 * 144 prompts passed checks its whole-set accuracy failed. The order never depends on `n`, so
 * every prefix of a sample is the smaller sample. A family is in the sample once `n` reaches
 * about the set's size over the family's (the bundled set's four are in any four prompts).
 */
export function competenceSample(set: CompetenceSet, n: number): CompetenceItem[] {
  const byFamily = new Map<string, CompetenceItem[]>();
  for (const item of new Rng(0x5ca1ab1e).shuffle(set.items)) {
    const key = item.family ?? '';
    if (!byFamily.has(key)) byFamily.set(key, []);
    byFamily.get(key)!.push(item);
  }
  const queues = [...byFamily.keys()].sort().map((k) => ({ items: byFamily.get(k)!, taken: 0 }));
  const total = set.items.length;
  const out: CompetenceItem[] = [];
  while (out.length < Math.min(n, total)) {
    let next = queues[0];
    let behind = -Infinity;
    for (const q of queues) {
      const d = ((out.length + 1) * q.items.length) / total - q.taken;
      if (q.taken < q.items.length && d > behind + 1e-9) [next, behind] = [q, d];
    }
    out.push(next.items[next.taken++]);
  }
  return out;
}

/** Share of answers that pass their item's check (answers[i] answers items[i]). */
export function competenceAccuracy(items: CompetenceItem[], answers: string[]): { accuracy: number; correct: boolean[] } {
  if (answers.length !== items.length) throw new Error(`${answers.length} answers for ${items.length} prompts`);
  const correct = items.map((it, i) => runCheck(it.check, answers[i]));
  return { accuracy: correct.filter(Boolean).length / Math.max(items.length, 1), correct };
}
