import type { KnowledgeBase } from '../tasks/knowledgeBase.js';
import { Rng } from '../util/random.js';
import { makeTask, type Task, type TaskFamily } from '../tasks/taskFamilies.js';
import { checkResponse, type Persona } from './persona.js';

const MIXED: TaskFamily[] = ['arithmetic', 'units', 'facts'];

/**
 * A task of the persona's family ("mixed": arithmetic, units or facts), phrased as the persona
 * asks in the conversation (`heldOut` false: the generators' training phrasings in a `train`
 * template) or as it is measured (`heldOut` true: held-out phrasings in a `held_out` template).
 * Questions in `exclude` (the competence set's: never trained on) are drawn again.
 */
export function personaTask(r: Rng, persona: Persona, kb: KnowledgeBase, heldOut = false, exclude?: ReadonlySet<string>): Task {
  for (;;) {
    const family = persona.task === 'mixed' ? r.pick(MIXED) : persona.task;
    const task = makeTask(r, family, kb, { heldOutPhrasing: heldOut });
    if (exclude?.has(task.question)) continue;
    const template = r.pick(heldOut ? persona.prompts.heldOut : persona.prompts.train);
    return { ...task, question: template.replace('{question}', task.question) };
  }
}

/**
 * The questions a benchmark run with `seed` scores the persona on: `n` tasks in held-out
 * phrasings, the same for every measurement of the run, none of them in `exclude`.
 */
export function heldOutTasks(persona: Persona, seed: number, kb: KnowledgeBase, n: number, exclude?: ReadonlySet<string>): Task[] {
  const r = new Rng(seed ^ 0x5eed);
  return Array.from({ length: n }, () => personaTask(r, persona, kb, true, exclude));
}

export interface Reaction {
  /** Every rule holds. */
  ok: boolean;
  /** The first rule that failed (what the user complains about), or null. */
  violated: string | null;
  failed: string[];
  /** What the user says next: a satisfied phrase or a complaint about `violated`. */
  reply: string;
}

/**
 * A scripted user with a persona's preferences: asks questions of its task family and reacts to
 * each answer with one of the persona's phrases. Deterministic in its seed.
 */
export class SimulatedUser {
  private readonly r: Rng;

  constructor(
    readonly persona: Persona,
    seed: number,
    private readonly kb: KnowledgeBase,
    /** Questions never to ask (the competence set's). */
    private readonly exclude?: ReadonlySet<string>,
  ) {
    this.r = new Rng(seed);
  }

  nextTask(): Task {
    return personaTask(this.r, this.persona, this.kb, false, this.exclude);
  }

  react(response: string): Reaction {
    const check = checkResponse(this.persona, response);
    if (check.ok) return { ...check, reply: this.r.pick(this.persona.satisfied) };
    const phrases = this.persona.violated[check.violated!] ?? this.persona.violated.default;
    return { ...check, reply: this.r.pick(phrases) };
  }
}
