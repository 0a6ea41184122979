/**
 * Agent examples for the default model: what OpenClaw sends (a long system prompt, a list of tools
 * with JSON schemas, earlier turns, the user's message) and what the model should write: a tool
 * call to the right listed tool with the arguments the request implies, then an answer read from
 * the tool's result; or, when no tool is needed, a normal answer (the task families of corpus.ts).
 */
import type { ChatMessage } from '../../main/engine/text/chatTemplate.js';
import type { KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { makeTask, type Task } from '../../main/tasks/taskFamilies.js';
import { agentSystemPrompt, envelope, type PromptSet } from './agentPrompts.js';
import { FILES, HELD_OUT_TOOLS, PEOPLE, TOPICS, TRAIN_TOOLS, type AgentTool, type AgentWorld } from './agentTools.js';
import type { Example } from './corpus.js';
import { FAMILY_MIX } from './corpus.js';
import { DEFAULT_STYLE_MIX, renderAnswer } from './styles.js';

/** One agent example, and what evalAgent.ts checks its first answer against. */
export interface AgentExample extends Example {
  /** The tool the request needs (null: answer directly). */
  expectedTool: string | null;
  /** The arguments the request implies (null without a tool). */
  expectedArgs: Record<string, unknown> | null;
  /** The task answered directly, for accuracy (null with a tool). */
  task: Task | null;
  /** Index in `messages` of the first assistant message (what the model writes after the prompt). */
  firstAnswer: number;
}

export interface AgentOptions {
  /** Held-out tools (the needed one always held out) and prompt texts: for evaluation. Default false. */
  heldOut?: boolean;
  /** Share of examples whose request needs a tool. Default 0.55. */
  toolShare?: number;
  /** Most workspace-note lines in the system prompt (its length; 120 is about 5,000 characters). Default 160. */
  maxNoteLines?: number;
}

export class AgentTurnGenerator {
  private readonly r: Rng;
  private readonly w: AgentWorld;

  constructor(
    seed: number,
    kb: KnowledgeBase,
    private readonly opts: AgentOptions = {},
  ) {
    this.r = new Rng(seed);
    this.w = { kb, people: PEOPLE, files: FILES, topics: TOPICS };
  }

  next(): AgentExample {
    const r = this.r;
    const heldOut = this.opts.heldOut ?? false;
    const needsTool = r.chance(this.opts.toolShare ?? 0.55);
    const pool = heldOut ? HELD_OUT_TOOLS : TRAIN_TOOLS;
    const needed = needsTool ? r.pick(pool) : null;
    const others = r.shuffle(TRAIN_TOOLS.filter((t) => t !== needed)).slice(0, r.int(needed ? 2 : 1, 9));
    const tools = r.shuffle(needed ? [needed, ...others] : others);
    const set: PromptSet = heldOut ? 'heldOut' : 'train';
    const system = agentSystemPrompt(r, this.w, tools, set, r.int(0, this.opts.maxNoteLines ?? 160));
    const messages: ChatMessage[] = [{ role: 'system', content: system }, ...this.history(others)];
    const learn = messages.map(() => false);
    const firstAnswer = messages.length + 1;
    let task: Task | null = null;
    let args: Record<string, unknown> | null = null;
    if (needed) {
      const req = needed.ask(r, this.w);
      args = req.args;
      messages.push(
        { role: 'user', content: envelope(r, req.question) },
        ...toolExchange(r, needed, req.args, `call_${r.int(10000, 99999)}`),
      );
    } else {
      task = makeTask(r, r.weighted(FAMILY_MIX), this.w.kb);
      messages.push({ role: 'user', content: envelope(r, task.question) }, { role: 'assistant', content: this.answer(task) });
    }
    while (learn.length < messages.length) learn.push(messages[learn.length].role === 'assistant');
    return {
      kind: 'agent',
      messages,
      tools: tools.map((t) => t.spec),
      learn,
      expectedTool: needed?.spec.function.name ?? null,
      expectedArgs: args,
      task,
      firstAnswer,
    };
  }

  private answer(t: Task): string {
    return renderAnswer(this.r, t, this.r.weighted(DEFAULT_STYLE_MIX), { terseWorking: true, gradingWorkFirst: true });
  }

  /** Zero to two earlier exchanges: a question answered, or a tool used, as a session goes. */
  private history(tools: readonly AgentTool[]): ChatMessage[] {
    const r = this.r;
    const out: ChatMessage[] = [];
    for (let i = r.int(0, 2); i > 0; i--) {
      if (tools.length && r.chance(0.5)) {
        const t = r.pick(tools);
        const req = t.ask(r, this.w);
        out.push({ role: 'user', content: envelope(r, req.question) }, ...toolExchange(r, t, req.args, `call_${r.int(10000, 99999)}`));
      } else {
        const task = makeTask(r, r.weighted(FAMILY_MIX), this.w.kb);
        out.push({ role: 'user', content: envelope(r, task.question) }, { role: 'assistant', content: this.answer(task) });
      }
    }
    return out;
  }
}

/** The assistant's tool call, the tool's result and the answer read from it. */
function toolExchange(r: Rng, t: AgentTool, args: Record<string, unknown>, id: string): ChatMessage[] {
  const result = t.result(r, args);
  return [
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name: t.spec.function.name, arguments: JSON.stringify(args) } }],
    },
    { role: 'tool', tool_call_id: id, content: result },
    { role: 'assistant', content: t.reply(args, result) },
  ];
}
