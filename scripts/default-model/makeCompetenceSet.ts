/**
 * `node dist/scripts/default-model/makeCompetenceSet.js [--out FILE] [--n N]`
 *
 * Writes the bundled model's competence set, `clawloop_competence.jsonl`: N held-out tasks from the
 * task generators (families in the training mix, question phrasings the model never saw where a
 * family has them, no question twice), each with the check that marks answers exactly as
 * `isCorrect` does. Deterministic: seed {@link COMPETENCE_SEED}, used for nothing else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { taskCheck } from '../../main/tasks/competenceCheck.js';
import { COMPETENCE_FILE } from '../../main/tasks/competenceSet.js';
import { loadKnowledgeBase, type KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { makeTask, type TaskFamily } from '../../main/tasks/taskFamilies.js';
import { FAMILY_MIX } from './corpus.js';
import { DEFAULT_MODEL_NAME } from './modelSpec.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: node dist/scripts/default-model/makeCompetenceSet.js [--out FILE] [--n N]

Writes the bundled model's competence set (clawloop_competence.jsonl): N held-out tasks with checks.
  --out FILE   where to write it (default: the bundled model's folder)
  --n N        tasks (default: 240)`;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
export const COMPETENCE_SEED = 31337;

/** The set's lines: N tasks split by the training family mix, in a fixed interleaved order. */
export function competenceLines(kb: KnowledgeBase, n: number): string[] {
  const r = new Rng(COMPETENCE_SEED);
  const families = Object.keys(FAMILY_MIX) as TaskFamily[];
  const quota = new Map(families.map((f) => [f, Math.round(n * FAMILY_MIX[f])]));
  const seen = new Set<string>();
  const lines: string[] = [];
  for (let guard = 0; lines.length < n && guard < n * 100; guard++) {
    const family = families[guard % families.length];
    if ((quota.get(family) ?? 0) <= 0) continue;
    const task = makeTask(r, family, kb, { heldOutPhrasing: true });
    if (seen.has(task.question)) continue;
    seen.add(task.question);
    quota.set(family, quota.get(family)! - 1);
    const id = `${family}-${lines.length + 1}`;
    lines.push(JSON.stringify({ id, family, prompt: task.question, check: taskCheck(task) }));
  }
  return lines;
}

function main(): void {
  const { values } = scriptArgs(USAGE, {
    options: {
      out: { type: 'string', default: path.join(ROOT, 'resources/models', DEFAULT_MODEL_NAME, COMPETENCE_FILE) },
      n: { type: 'string', default: '240' },
    },
  });
  const lines = competenceLines(loadKnowledgeBase(), Number(values.n));
  fs.writeFileSync(values.out!, `${lines.join('\n')}\n`);
  console.log(`wrote ${lines.length} prompts to ${values.out}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) main();
