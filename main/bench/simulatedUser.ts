import type { KnowledgeBase } from '../tasks/knowledgeBase.js';
import { Rand } from '../tasks/rand.js';
import { makeTask, type Task, type TaskFamily } from '../tasks/taskFamilies.js';
import { checkResponse, type Persona } from './persona.js';

const MIXED: TaskFamily[] = ['arithmetic', 'units', 'facts'];

/** A task of the persona's family ("mixed": arithmetic, units or facts). */
export function personaTask(r: Rand, persona: Persona, kb: KnowledgeBase): Task {
  const family = persona.task === 'mixed' ? r.pick(MIXED) : persona.task;
  return makeTask(r, family, kb);
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
  private readonly r: Rand;

  constructor(
    readonly persona: Persona,
    seed: number,
    private readonly kb: KnowledgeBase,
  ) {
    this.r = new Rand(seed);
  }

  nextTask(): Task {
    return personaTask(this.r, this.persona, this.kb);
  }

  react(response: string): Reaction {
    const check = checkResponse(this.persona, response);
    if (check.ok) return { ...check, reply: this.r.pick(this.persona.satisfied) };
    const phrases = this.persona.violated[check.violated!] ?? this.persona.violated.default;
    return { ...check, reply: this.r.pick(phrases) };
  }
}
