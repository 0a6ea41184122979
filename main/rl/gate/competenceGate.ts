import { parameterCount, type LoraAdapter, type Model } from '../../engine/index.js';
import type { TrainingConfig } from '../../protocol/training.js';
import {
  competenceAccuracy,
  competenceSample,
  COMPETENCE_FILE,
  CompetenceSetError,
  loadCompetenceSet,
  type CompetenceItem,
  type CompetenceSet,
} from '../../tasks/competenceSet.js';
import { answerText, greedyAnswers, greedyAnswersLike } from '../competenceAnswers.js';

/**
 * Models up to this size are checked with the candidate's adapter merged into a copy of their
 * weights. Through the LoRA path each adapted projection is three matrix products instead of one:
 * on the bundled 5 M model that made the check's teacher-forced pass 40 % slower than the base
 * model's (`npm run bench:gate-cost`), while a copy of its weights is 22 MB. Larger models keep
 * the adapter as serving applies it (their projections dwarf a rank-16 update, and a copy of their
 * weights would not be cheap); neither side of the limit was measured on a larger model.
 */
export const MERGE_FOR_CHECK_MAX_PARAMETERS = 50e6;

function mergedForCheck(model: Model): boolean {
  return model.mergeable && parameterCount(model.config) <= MERGE_FOR_CHECK_MAX_PARAMETERS;
}

/** A policy's result on the gate's prompts. */
export interface CompetenceMeasure {
  accuracy: number;
  n: number;
  /** Greedy answers (token ids), kept to diff the next candidate against. */
  answers: number[][];
  correct: boolean[];
  /** Answers generated rather than taken unchanged from the reference policy. */
  generated: number;
  seconds: number;
}

/**
 * The competence set the gate checks candidates on, the fixed sample of it a check uses, and the
 * greedy answers of the live policy (a new candidate is diffed against them, so a check decodes
 * only the answers the update changed).
 */
export class CompetenceGate {
  private live: { key: string; checkpoint: string | null; measure: CompetenceMeasure } | null = null;
  /** The base model's measure on the sample, from when it was live (it stays the same). */
  private base: { key: string; measure: CompetenceMeasure } | null = null;
  private readonly sampled = new Map<number, { items: CompetenceItem[]; prompts: number[][] }>();
  private whole: WholeSetMeasures | null = null;

  private constructor(
    readonly set: CompetenceSet | null,
    /** Why there is no set: the sentence the status shows. */
    private readonly missing: string | null,
  ) {}

  /** The model folder's competence set; a folder without one (or with a broken one) leaves the gate off. */
  static load(modelDir: string): CompetenceGate {
    try {
      const set = loadCompetenceSet(modelDir);
      if (set) return new CompetenceGate(set, null);
      return new CompetenceGate(
        null,
        `the model folder has no ${COMPETENCE_FILE}, so new checkpoints go live unchecked (add one to turn the gate on)`,
      );
    } catch (err) {
      if (!(err instanceof CompetenceSetError)) throw err;
      return new CompetenceGate(null, `${err.message}; fix the file and restart to turn the gate on`);
    }
  }

  /** Whether checkpoints are checked under this configuration. */
  on(c: TrainingConfig): boolean {
    return c.competence_gate && this.set !== null;
  }

  /** One sentence for the status: what the gate checks, or why it is off. */
  describe(c: TrainingConfig): string {
    if (!this.set) return `off: ${this.missing}`;
    if (!c.competence_gate) return 'off: competence_gate is false, so new checkpoints go live unchecked';
    const n = Math.min(c.competence_prompts, this.set.items.length);
    const families = this.checksFamilies(c)
      ? `, or its accuracy on one task family more than ${(100 * c.competence_family_margin!).toFixed(1)} points below the base model's`
      : '';
    const which = n === this.set.items.length ? `all ${n} prompts` : `${n} of the ${this.set.items.length} prompts`;
    return `on: each checkpoint answers ${which} of ${COMPETENCE_FILE} and is held back when its accuracy falls more than ${(100 * c.competence_margin).toFixed(1)} points below the best live policy${families}`;
  }

  /** Whether checks also hold each task family to the base model's accuracy on it (competence_family_margin). */
  checksFamilies(c: TrainingConfig): boolean {
    return this.on(c) && c.competence_family_margin !== null && this.set!.items.some((it) => it.family !== null);
  }

  /** Whether a check's sample is the whole set (a rise on it then needs no confirmation). */
  readsWholeSet(c: TrainingConfig): boolean {
    return c.competence_prompts >= this.set!.items.length;
  }

  /** The prompts a check answers, in the order measures keep their answers. */
  items(model: Model, c: TrainingConfig): CompetenceItem[] {
    return this.sample(model, c.competence_prompts).items;
  }

  /**
   * Names the prompts and decoding a verdict is on; verdicts with different keys are not compared.
   * `share`: the sample gives each family its share of the set (competenceSample). Keys without it
   * were samples dealt a family at a time, other prompts: a reference stored under one is measured again.
   */
  key(c: TrainingConfig): string {
    return `${this.set!.hash}:${Math.min(c.competence_prompts, this.set!.items.length)}:${c.competence_max_tokens}:share`;
  }

  /** The cached measure of the live policy, when it is current. */
  liveMeasure(c: TrainingConfig, checkpoint: string | null): CompetenceMeasure | null {
    const l = this.live;
    return l && l.key === this.key(c) && l.checkpoint === checkpoint ? l.measure : null;
  }

  /** Remembers the live policy's measure (after it was measured, or after a candidate went live). */
  setLive(c: TrainingConfig, checkpoint: string | null, measure: CompetenceMeasure): void {
    this.live = { key: this.key(c), checkpoint, measure };
    if (checkpoint === null) this.setBase(c, measure);
  }

  /** Remembers the base model's measure on the sample (per-family verdicts and whole-set measures start from it). */
  setBase(c: TrainingConfig, measure: CompetenceMeasure): void {
    this.base = { key: this.key(c), measure };
  }

  /** The base model's measure on the sample, when it was measured under this configuration's key. */
  baseMeasure(c: TrainingConfig): CompetenceMeasure | null {
    return this.base?.key === this.key(c) ? this.base.measure : null;
  }

  /**
   * What a rise of the reference is checked against (confirmReference.ts): measures on the whole
   * set, kept while the set and decoding stay the same (in memory: after a restart they are measured again).
   */
  wholeSet(c: TrainingConfig): WholeSetMeasures {
    const key = `${this.set!.hash}:all:${c.competence_max_tokens}`;
    if (this.whole?.key !== key) this.whole = { key, base: null, accuracies: new Map() };
    return this.whole;
  }

  /**
   * Greedy accuracy of a policy on the sample (`o.whole`: on the whole set). With `o.like` (another
   * policy's measure on the same prompts), only the answers that differ from its answers are
   * decoded. With `o.known` (this policy's measure on the sample, when measuring the whole set), the
   * sample's answers are taken from it: the sample is the whole set's first prompts. A small model
   * decodes with the adapter merged into its weights (mergedForCheck).
   */
  async measure(model: Model, adapter: LoraAdapter | null, c: TrainingConfig, o: MeasureOptions = {}): Promise<CompetenceMeasure> {
    const t0 = performance.now();
    const { items, prompts } = this.sample(model, o.whole ? this.set!.items.length : c.competence_prompts);
    const known = o.known?.answers ?? [];
    if (known.length > items.length) throw new Error(`${known.length} known answers for ${items.length} prompts`);
    const rest = prompts.slice(known.length);
    const like = o.like?.answers.slice(known.length);
    const d = { maxTokens: c.competence_max_tokens };
    const merged = rest.length && adapter && mergedForCheck(model) ? await model.withMergedAdapter(adapter) : null;
    try {
      const [m, a] = merged ? [merged, null] : [model, adapter];
      const g = like ? await greedyAnswersLike(m, a, rest, like, d) : await greedyAnswers(m, a, rest, d);
      const answers = [...known, ...g.ids];
      const { accuracy, correct } = competenceAccuracy(
        items,
        answers.map((ids) => answerText(model, ids)),
      );
      return { accuracy, n: items.length, answers, correct, generated: g.generated, seconds: (performance.now() - t0) / 1000 };
    } finally {
      merged?.dispose();
    }
  }

  private sample(model: Model, size: number): { items: CompetenceItem[]; prompts: number[][] } {
    const n = Math.min(size, this.set!.items.length);
    let s = this.sampled.get(n);
    if (!s) {
      const items = competenceSample(this.set!, n);
      s = { items, prompts: items.map((it) => model.encodeChat({ messages: it.messages, addGenerationPrompt: true }).ids) };
      this.sampled.set(n, s);
    }
    return s;
  }
}

/** What a measure may start from (CompetenceGate.measure). */
export interface MeasureOptions {
  /** Another policy's measure on the same prompts: only the answers that differ from its are decoded. */
  like?: CompetenceMeasure | null;
  /** Measure on the whole set instead of the sample. */
  whole?: boolean;
  /** This policy's measure on the sample, whose answers stand for the whole set's first prompts. */
  known?: CompetenceMeasure | null;
}

/** The whole set's measures a check of the reference's rise needs (confirmReference.ts). */
export interface WholeSetMeasures {
  key: string;
  base: CompetenceMeasure | null;
  /** Accuracies on the whole set by policy ('base' or a checkpoint id): what a reference's rise is measured against. */
  accuracies: Map<string, number>;
}
