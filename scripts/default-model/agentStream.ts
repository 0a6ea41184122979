/**
 * The agent phase's training stream: example i is an agent turn (agentTurns.ts) or, to keep what
 * the model already does, an ordinary example drawn as the model's last phase drew them (terse
 * answers that keep their working, grading that works the problem first), with user replies in
 * phrase set 4 (feedback.ts: set 3 reworded as people type, replyNoise.ts).
 * Deterministic from its seed and index, so a resumed run continues the same stream.
 */
import type { ChatTemplate } from '../../main/engine/text/chatTemplate.js';
import type { TextTokenizer } from '../../main/engine/text/tokenizer.js';
import type { KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { AgentTurnGenerator } from './agentTurns.js';
import { CorpusGenerator } from './corpus.js';
import { encodeExample } from './encodeExample.js';

/** One encoded training sequence. */
export interface Encoded {
  ids: number[];
  weights: number[];
  agent: boolean;
}

export interface AgentStreamOptions {
  seed: number;
  /** Share of agent examples; the rest are ordinary ones. */
  agentShare: number;
  /** Longer examples are skipped (the context the model is trained to). */
  maxTokens: number;
  /** Most workspace-note lines in an agent prompt (agentTurns.ts). */
  maxNoteLines: number;
  /** Share of agent examples whose request needs a tool (agentTurns.ts). Default 0.55. */
  toolShare?: number;
  /**
   * Loss weight of context tokens (the prompt) relative to the assistant's (1). The agent's prompt
   * is thousands of tokens against tens written: at the ordinary 0.1 the prompt would take most of
   * the gradient, so agent examples use this weight for it instead.
   */
  agentContextWeight: number;
}

export class AgentStream {
  private readonly pick: Rng;
  private readonly agents: AgentTurnGenerator;
  private readonly plain: CorpusGenerator;
  /** Examples drawn so far (skipped ones included): where a resumed run continues. */
  index = 0;

  constructor(
    kb: KnowledgeBase,
    private readonly template: ChatTemplate,
    private readonly tokenizer: TextTokenizer,
    private readonly o: AgentStreamOptions,
  ) {
    this.pick = new Rng(o.seed);
    this.agents = new AgentTurnGenerator(o.seed + 1, kb, { maxNoteLines: o.maxNoteLines, toolShare: o.toolShare });
    this.plain = new CorpusGenerator(o.seed + 2, kb);
    this.plain.phrases = 4;
    this.plain.terseWorking = true;
    this.plain.gradingWorkFirst = true;
  }

  /** Draws (without encoding) up to example `index`, to resume there. */
  skipTo(index: number): void {
    while (this.index < index) this.draw();
  }

  private draw() {
    this.index++;
    const agent = this.pick.chance(this.o.agentShare);
    return { agent, ex: agent ? this.agents.next() : this.plain.next() };
  }

  /** The next example that fits `maxTokens`, encoded. */
  next(): Encoded {
    for (;;) {
      const { agent, ex } = this.draw();
      const enc = encodeExample(this.template, this.tokenizer, ex, { learned: 1, context: agent ? this.o.agentContextWeight : 0.1 });
      if (enc.ids.length <= this.o.maxTokens) return { ...enc, agent };
    }
  }
}
