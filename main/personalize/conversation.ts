import { randomUUID } from 'node:crypto';
import type { BenchClient } from './benchClient.js';
import type { TalkedTurn } from './funnelProbe.js';
import type { HeldOutEval } from './heldOutEval.js';
import type { PersonalizeOptions } from './personalize.js';
import type { SimulatedUser } from './simulatedUser.js';

/**
 * The scripted user talking to ClawLoop through the HTTP API as OpenClaw would, session after
 * session, until it has had `interactions` responses: each reply of the user is the next state of
 * the response before it. A session ends when a response satisfies the persona or after the
 * persona's turn limit. The held-out score is measured every `curveEvery` interactions.
 *
 * With `channel: 'explicit'` the user instead rates each answer through POST /v1/feedback (👍, or
 * 👎 with its complaint typed as the hint, the words the implicit channel would have replied), as
 * a person does in the app; its next message is a plain {@link RETRY} and a session ends with no
 * final message, so no wish reaches the judges by the next state.
 */
/** The explicit channel's next message after a 👎: asks again without saying what was wrong. */
export const RETRY = 'Try again.';

export class Conversation {
  interaction = 0;
  sessions = 0;
  /** Whether each response satisfied the persona, in order. */
  readonly online: boolean[] = [];
  /** Every main turn: where it was, its prompt and the user's truth (for the funnel). */
  readonly talked: TalkedTurn[] = [];
  /** The held-out score after each measurement: [interactions, score]. */
  readonly curve: Array<[number, number]>;
  /** Accuracy on the competence subset after each measurement: [interactions, accuracy]. */
  readonly accuracyCurve: Array<[number, number]>;
  /** Sessions until three satisfying responses in a row; null while it has not happened. */
  sessionsTo3: number | null = null;
  /** Time spent waiting for the trainer, and talking (without measuring or waiting), in ms. */
  waitMs = 0;
  talkMs = 0;
  private streak = 0;
  private nextCurve: number;

  constructor(
    private readonly o: PersonalizeOptions,
    private readonly client: BenchClient,
    private readonly held: HeldOutEval,
    private readonly user: SimulatedUser,
    /** The trainer's batch size: pacing waits until fewer samples than this wait. */
    private readonly batchSize: number,
    before: { score: number; subsetAccuracy: number },
  ) {
    this.curve = [[0, before.score]];
    this.accuracyCurve = [[0, before.subsetAccuracy]];
    this.nextCurve = o.curveEvery > 0 ? o.curveEvery : Infinity;
  }

  /** Talks until the interactions are used up, then lets the trainer take in the last replies. */
  async run(): Promise<void> {
    const t1 = performance.now();
    let evalMs = 0;
    while (this.interaction < this.o.interactions) {
      await this.session();
      if (this.interaction >= this.nextCurve && this.interaction < this.o.interactions) {
        await this.pace();
        const e0 = performance.now();
        const m = await this.held.measure(`after ${this.interaction} interactions`, 'subset');
        this.curve.push([this.interaction, m.score]);
        this.accuracyCurve.push([this.interaction, m.subsetAccuracy]);
        evalMs += performance.now() - e0;
        while (this.nextCurve <= this.interaction) this.nextCurve += this.o.curveEvery;
      }
    }
    await this.pace();
    this.talkMs = performance.now() - t1 - evalMs - this.waitMs;
  }

  /** A user's think time: waits for the trainer to catch up before the next message. */
  private async pace(): Promise<void> {
    if (this.o.pace && this.o.method !== 'off') this.waitMs += await this.client.waitForTrainer(this.batchSize, 300_000);
  }

  /** One session: a question, then the user's reactions until satisfied or out of turns. */
  private async session(): Promise<void> {
    const { o, client, user } = this;
    this.sessions++;
    const sessionId = `bench-${this.sessions}-${randomUUID()}`;
    const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [{ role: 'user', content: user.nextTask().question }];
    for (let turn = 1; ; turn++) {
      await this.pace();
      // Seeded per interaction, so the same seed replays the same conversation.
      const reply = await client.mainTurn(sessionId, messages, o.maxTokens, o.seed * 100_003 + this.interaction);
      this.interaction++;
      const reaction = user.react(reply.content);
      this.online.push(reaction.ok);
      this.talked.push({ sessionId, completionId: reply.id, messages: [...messages], ok: reaction.ok, violated: reaction.violated });
      const explicit = (o.channel ?? 'implicit') === 'explicit';
      if (explicit) await client.feedback(reply.id, reaction.ok ? 'up' : 'down', reaction.ok ? null : reaction.reply);
      o.log(
        `bench: #${this.interaction} session ${this.sessions} turn ${turn} (adapter v${reply.adapterVersion}): ${reaction.ok ? 'satisfied' : `violates ${reaction.failed.join(', ')}`}`,
      );
      if (reaction.ok) {
        this.streak++;
        if (this.streak >= 3 && this.sessionsTo3 === null) this.sessionsTo3 = this.sessions;
      } else this.streak = 0;
      if (reaction.ok || turn >= o.persona.maxTurnsPerSession || this.interaction >= o.interactions) {
        await client.endSession(sessionId, explicit ? null : reaction.reply);
        return;
      }
      messages.push({ role: 'assistant', content: reply.content }, { role: 'user', content: explicit ? RETRY : reaction.reply });
    }
  }
}
