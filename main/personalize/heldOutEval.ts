import type { CompetenceItem } from '../tasks/competenceSet.js';
import { runCheck } from '../tasks/competenceCheck.js';
import { isCorrect, type Task } from '../tasks/taskFamilies.js';
import type { BenchClient } from './benchClient.js';
import { checkResponse, type Persona } from './persona.js';

export interface EvalResult {
  /** Share of the persona's held-out prompts whose answer satisfies every rule. */
  score: number;
  /** Accuracy on the competence set (greedy), or on the scored answers when the model has no set. */
  accuracy: number;
  /** Competence prompts measured (0: the accuracy is that of the scored answers). */
  accuracyPrompts: number;
  /** Accuracy on the curve's subset of the competence set (its first prompts), for the accuracy curve. */
  subsetAccuracy: number;
  samples: Array<{ question: string; response: string; satisfied: boolean; failed: string[]; correct: boolean }>;
}

/** Requests in flight at once: the server decodes them in one batch. */
const CONCURRENCY = 32;

/** `f` over `items`, at most `limit` at a time, results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, f: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await f(items[i], i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The benchmark's measurement, as side turns (never trained on, never judged):
 * - the persona's score: the same held-out prompts each time (never asked in the conversation,
 *   in held-out phrasings), sampled with fixed seeds at the model's default temperature;
 * - competence: the model folder's competence set answered greedily, so two measurements differ
 *   only where the adapter changed an answer. `measure(label, 'subset')` uses the first
 *   `subsetPrompts` of it (the curve's points); 'all' the whole set (before and after).
 */
export class HeldOutEval {
  /** Seconds spent measuring so far. */
  seconds = 0;

  constructor(
    private readonly client: BenchClient,
    private readonly persona: Persona,
    private readonly tasks: Task[],
    private readonly competence: CompetenceItem[],
    private readonly o: { maxTokens: number; competenceMaxTokens: number; subsetPrompts: number },
    private readonly log: (line: string) => void,
  ) {}

  async measure(label: string, competence: 'all' | 'subset'): Promise<EvalResult> {
    const e0 = performance.now();
    const samples = await mapLimited(this.tasks, CONCURRENCY, async (task, i) => {
      const response = await this.client.sideTurn([{ role: 'user', content: task.question }], {
        seed: 1000 + i,
        maxTokens: this.o.maxTokens,
      });
      const c = checkResponse(this.persona, response);
      return { question: task.question, response, satisfied: c.ok, failed: c.failed, correct: isCorrect(task, response) };
    });
    const score = samples.filter((s) => s.satisfied).length / samples.length;
    const items = competence === 'all' ? this.competence : this.competence.slice(0, this.o.subsetPrompts);
    let accuracy = samples.filter((s) => s.correct).length / samples.length;
    let subsetAccuracy = accuracy;
    if (items.length) {
      const right = await mapLimited(items, CONCURRENCY, async (it, i) =>
        runCheck(it.check, await this.client.sideTurn(it.messages, { seed: i, maxTokens: this.o.competenceMaxTokens, temperature: 0 })),
      );
      accuracy = right.filter(Boolean).length / items.length;
      const sub = right.slice(0, this.o.subsetPrompts);
      subsetAccuracy = sub.filter(Boolean).length / sub.length;
    }
    this.seconds += (performance.now() - e0) / 1000;
    const on = items.length ? `${items.length} competence prompts` : `the ${samples.length} answers`;
    this.log(`bench: ${label}: score ${score.toFixed(2)} (${samples.length} held-out prompts), accuracy ${accuracy.toFixed(3)} (${on})`);
    return { score, accuracy, accuracyPrompts: items.length, subsetAccuracy, samples };
  }
}
