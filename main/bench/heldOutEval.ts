import { isCorrect, type Task } from '../tasks/taskFamilies.js';
import type { BenchClient } from './benchClient.js';
import { checkResponse, type Persona } from './persona.js';

export interface EvalResult {
  score: number;
  accuracy: number;
  samples: Array<{ question: string; response: string; satisfied: boolean; failed: string[]; correct: boolean }>;
}

/**
 * The benchmark's measurement: the same held-out prompts each time (never asked in the
 * conversation), asked as side turns so nothing is learned from them. Score = share of responses
 * that satisfy every persona rule; accuracy = share that answer the task correctly.
 */
export class HeldOutEval {
  /** Seconds spent measuring so far. */
  seconds = 0;

  constructor(
    private readonly client: BenchClient,
    private readonly persona: Persona,
    private readonly tasks: Task[],
    private readonly maxTokens: number,
    private readonly log: (line: string) => void,
  ) {}

  async measure(label: string): Promise<EvalResult> {
    const e0 = performance.now();
    const samples: EvalResult['samples'] = [];
    for (let i = 0; i < this.tasks.length; i++) {
      const task = this.tasks[i];
      const response = await this.client.sideTurn(task.question, 1000 + i, this.maxTokens);
      const c = checkResponse(this.persona, response);
      samples.push({ question: task.question, response, satisfied: c.ok, failed: c.failed, correct: isCorrect(task, response) });
    }
    const score = samples.filter((s) => s.satisfied).length / samples.length;
    const accuracy = samples.filter((s) => s.correct).length / samples.length;
    this.seconds += (performance.now() - e0) / 1000;
    this.log(`bench: ${label}: score ${score.toFixed(2)}, accuracy ${accuracy.toFixed(2)} (${samples.length} held-out prompts)`);
    return { score, accuracy, samples };
  }
}
