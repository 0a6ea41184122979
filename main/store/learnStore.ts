import type { Competence } from '../protocol/checkpoints.js';
import type { StepMetrics, TrainingConfig } from '../protocol/training.js';
import { CheckpointTable, type CheckpointRow } from './checkpointTable.js';
import type { Db } from './database.js';
import { FeedbackTable, type Feedback, type Rating } from './feedbackTable.js';
import { JudgementTable, type Judgement } from './judgementTable.js';
import { SampleQueue, type NewSample, type StoredSample } from './sampleQueue.js';
import { statementCache } from './statementCache.js';
import { StepTable, type FinishedStep, type StepRow } from './stepTable.js';
import { TrainerStateTable, type CompetenceReference, type TrainerStateRow } from './trainerStateTable.js';
import { TurnQueue, type HintWait, type ReadyTurn } from './turnQueue.js';
import { TurnStore, type StoredTurn } from './turnStore.js';

export type {
  CheckpointRow,
  CompetenceReference,
  Feedback,
  Judgement,
  NewSample,
  Rating,
  ReadyTurn,
  StepRow,
  StoredSample,
  TrainerStateRow,
};
export type { SampleKind } from './sampleQueue.js';
export { ConflictError, NotFoundError } from './storeErrors.js';

/**
 * The learning loop's records: feedback, judge results, samples, steps, checkpoints and the
 * trainer's durable state, one table module each; this class is the one handle callers hold. Used
 * by the HTTP thread (feedback, API reads) and by the trainer worker (its own connection); every
 * method is one short transaction.
 */
export class LearnStore {
  readonly turns: TurnStore;
  private readonly feedbackTable: FeedbackTable;
  private readonly judgementTable: JudgementTable;
  private readonly turnQueue: TurnQueue;
  private readonly samples: SampleQueue;
  private readonly stepTable: StepTable;
  private readonly checkpointTable: CheckpointTable;
  private readonly state: TrainerStateTable;

  constructor(private readonly db: Db) {
    const q = statementCache(db);
    this.turns = new TurnStore(db);
    this.feedbackTable = new FeedbackTable(db, q, this.turns);
    this.judgementTable = new JudgementTable(q);
    this.samples = new SampleQueue(db, q, this.turns);
    this.turnQueue = new TurnQueue(db, q, this.turns, this.feedbackTable, this.samples);
    this.checkpointTable = new CheckpointTable(db, q);
    this.stepTable = new StepTable(db, q, this.checkpointTable);
    this.state = new TrainerStateTable(db, q);
  }

  /** The connection (for the server's other stores: events, app queries). */
  get database(): Db {
    return this.db;
  }

  // ---- feedback (HTTP thread): feedbackTable.ts ----

  /** See {@link FeedbackTable.set}. */
  setFeedback(
    turnId: string,
    rating: Rating | null,
    hint: string | null,
    now: number,
    judgeHintRejected = false,
  ): { turn: StoredTurn; feedback: Feedback | null } {
    return this.feedbackTable.set(turnId, rating, hint, now, judgeHintRejected);
  }
  feedback(turnId: string): Feedback | null {
    return this.feedbackTable.get(turnId);
  }

  // ---- turn processing (trainer): turnQueue.ts, judgementTable.ts ----

  /** See {@link TurnQueue.nextReady}. */
  nextReadyTurn(wait?: HintWait): ReadyTurn | null {
    return this.turnQueue.nextReady(wait);
  }
  pendingTurnCount(): number {
    return this.turnQueue.pendingCount();
  }
  nextTurnNeedingLoggedPrm(): StoredTurn | null {
    return this.turnQueue.nextNeedingLoggedPrm();
  }
  isFirstTurnWithNextState(turn: StoredTurn): boolean {
    return this.turnQueue.isFirstWithNextState(turn);
  }
  /** Stores a judged turn's samples; `note` says why it trains nothing, when it does not. */
  commitTurn(turnId: string, epoch: number, samples: NewSample[], now: number, note: string | null = null): boolean {
    return this.turnQueue.commit(turnId, epoch, samples, now, note);
  }
  skipTurn(turnId: string, epoch: number, reason: string): boolean {
    return this.turnQueue.skip(turnId, epoch, reason);
  }
  learnNote(turnId: string): string | null {
    return this.turnQueue.note(turnId);
  }
  judgements(turnId: string): Judgement[] {
    return this.judgementTable.ofTurn(turnId);
  }
  insertJudgement(turnId: string, j: Omit<Judgement, 'createdAt'>, now: number): void {
    this.judgementTable.insert(turnId, j, now);
  }

  // ---- samples (trainer): sampleQueue.ts ----

  queuedCount(): number {
    return this.samples.queuedCount();
  }
  requeueUnfinished(): number {
    return this.samples.requeueUnfinished();
  }
  /** See {@link SampleQueue.readyCount}. */
  readySampleCount(judgeHintCutoff: number): number {
    return this.samples.readyCount(judgeHintCutoff);
  }
  takeBatch(
    n: number,
    liveVersion: number,
    maxStaleness: number | null,
    judgeHintCutoff?: number,
  ): Array<{ sample: StoredSample; turn: StoredTurn; stale: boolean }> {
    return this.samples.takeBatch(n, liveVersion, maxStaleness, judgeHintCutoff);
  }
  releaseBatch(ids: number[]): void {
    this.samples.release(ids);
  }
  samplesOfTurn(turnId: string): StoredSample[] {
    return this.samples.ofTurn(turnId);
  }

  // ---- steps (trainer): stepTable.ts ----

  commitStep(p: FinishedStep): void {
    this.stepTable.commit(p);
  }
  recordSkippedStep(step: number, reason: string, metrics: Partial<StepMetrics>, sampleIds: number[], now: number): void {
    this.stepTable.recordSkipped(step, reason, metrics, sampleIds, now);
  }
  steps(sinceStep: number): StepRow[] {
    return this.stepTable.since(sinceStep);
  }

  // ---- the trainer's state and adapter versions: trainerStateTable.ts ----

  trainerState(): TrainerStateRow {
    return this.state.get();
  }
  saveConfig(config: TrainingConfig): void {
    this.state.saveConfig(config);
  }
  setPaused(paused: boolean): void {
    this.state.setPaused(paused);
  }
  maxVersion(): number {
    return this.state.maxVersion();
  }
  recordRollback(checkpointId: string | null, version: number, now: number): void {
    this.state.recordRollback(checkpointId, version, now);
  }
  rollbackVersions(): Array<{ version: number; checkpointId: string | null; createdAt: number }> {
    return this.state.rollbackVersions();
  }

  // ---- checkpoints: checkpointTable.ts ----

  checkpoints(): CheckpointRow[] {
    return this.checkpointTable.all();
  }
  checkpoint(id: string): CheckpointRow | null {
    return this.checkpointTable.get(id);
  }
  setPinned(id: string, pinned: boolean): boolean {
    return this.checkpointTable.setPinned(id, pinned);
  }
  setCheckpointLabel(id: string, label: { name?: string | null; note?: string | null }): boolean {
    return this.checkpointTable.setLabel(id, label);
  }
  deleteCheckpointRows(ids: string[]): void {
    this.checkpointTable.deleteRows(ids);
  }

  // ---- the competence gate: checkpointTable.ts, trainerStateTable.ts ----

  /** The checkpoint saved but waiting for the gate's verdict, if any. */
  pendingCheckpoint(): CheckpointRow | null {
    return this.checkpointTable.pending();
  }
  /**
   * Records the gate's verdict on a checkpoint in one transaction: the verdict, and when it passed,
   * the checkpoint live under `liveVersion` and the new reference accuracy.
   */
  recordGateVerdict(
    id: string,
    competence: Competence | null,
    key: string | null,
    liveVersion: number | null,
    reference: CompetenceReference | null,
  ): void {
    this.db
      .transaction(() => {
        this.checkpointTable.setCompetence(id, competence, key);
        if (liveVersion !== null) this.state.makeLive(id, liveVersion);
        if (reference) this.state.setCompetenceReference(reference);
      })
      .immediate();
  }
  competenceReference(): CompetenceReference | null {
    return this.state.competenceReference();
  }
  setCompetenceReference(ref: CompetenceReference | null): void {
    this.state.setCompetenceReference(ref);
  }
}
