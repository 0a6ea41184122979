import type { TaskFamily } from '../../main/tasks/taskFamilies.js';
import type { Style } from './styles.js';

/** What `npm run eval:default` measures of the default model (eval.json); the model card is written from it. */
export interface EvalReport {
  n: number;
  sampling: { temperature: number; top_p: number };
  accuracy: { sampled: Record<TaskFamily | 'all', number>; greedy: Record<TaskFamily | 'all', number> };
  style_mix: Record<Style, number>;
  style_mix_target: Record<Style, number>;
  hint_following: Record<Style | 'all', number>;
  /** Task accuracy of the answers written to a style hint (arithmetic, units and grading), by style. */
  hinted_accuracy?: Record<Style, number>;
  prm: { held_out: number; in_distribution: number; by_label: Record<string, number> };
  hint_judge: {
    decision: number;
    correct_actionable: number;
    false_hints: number;
    cases: number;
    /** Per kind of case that needs a hint: cases, hints given, correct and actionable ones. */
    by_kind?: Record<string, { cases: number; hints: number; actionable: number }>;
  };
  examples: Array<{ kind: string; prompt: string; output: string }>;
  /** The folder of the model's own judge, relative to it, when it has one (else it judges itself). */
  judge?: string | null;
  seconds: number;
}
