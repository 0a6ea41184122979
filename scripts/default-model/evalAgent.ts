/**
 * `npm run eval:agent -- [--model DIR] [--n N] [--plain-n N] [--out FILE]`
 *
 * The default model as a small OpenClaw agent, on held-out tools and held-out system-prompt texts
 * (agentTurns.ts with `heldOut`), greedy:
 * - tool requests: valid tool-call rate (a parsable <tool_call> naming a listed tool), right-tool
 *   rate, right-arguments rate (every expected argument given with its value), and the
 *   continuation (after the tool's result, the answer quotes the result's first value);
 * - questions that need no tool: task accuracy, and how often it calls a tool anyway;
 * - task accuracy on the plain questions alone (as eval.json's "greedy"), to compare with today's.
 * A prompt longer than the model's context counts as a failure and is counted apart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { initBackend } from '../../main/engine/backends/backend.js';
import { generateText } from '../../main/engine/generation/generate.js';
import { Model } from '../../main/engine/model/model.js';
import type { ChatMessage, ToolSpec } from '../../main/engine/text/chatTemplate.js';
import { ChatOutputParser, type ParsedToolCall } from '../../main/engine/text/chatOutputParser.js';
import { defaultModelDir } from '../../main/resources.js';
import type { KnowledgeBase } from '../../main/tasks/knowledgeBase.js';
import { Rng } from '../../main/util/random.js';
import { isCorrect, makeTask, TASK_FAMILIES } from '../../main/tasks/taskFamilies.js';
import { AgentTurnGenerator } from './agentTurns.js';
import { SEEDS } from './modelSpec.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run eval:agent -- [options]
  --model DIR     model folder (default: the bundled model)
  --n N           held-out agent examples (default: 80)
  --plain-n N     plain task questions, a quarter per family (default: 100)
  --out FILE      write the figures as JSON there too`;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');

interface Output {
  text: string;
  calls: ParsedToolCall[];
  /** The prompt did not fit the model's context. */
  overflow: boolean;
}

async function complete(m: Model, messages: ChatMessage[], tools: ToolSpec[] | undefined, maxNewTokens: number): Promise<Output> {
  const ids = m.encodeChat({ messages, tools, addGenerationPrompt: true }).ids;
  if (ids.length + 8 > m.config.maxPositions) return { text: '', calls: [], overflow: true };
  const r = await generateText(m.lm, m.tokenizer, ids, { temperature: 0, maxNewTokens, stopTokenIds: m.generation.eosTokenIds });
  const parser = new ChatOutputParser({ toolCalls: tools !== undefined });
  const events = [...parser.push(r.text), ...parser.finish()];
  const text = events.flatMap((e) => (e.kind === 'content' ? [e.text] : [])).join('');
  return { text, calls: events.flatMap((e) => (e.kind === 'toolCall' ? [e.call] : [])), overflow: false };
}

/** The first number or string in a tool's JSON result (what the answer should quote). */
function firstValue(result: string): string {
  let v: unknown;
  try {
    v = JSON.parse(result);
  } catch {
    return result.split('\n')[0];
  }
  const walk = (x: unknown): string | null => {
    if (typeof x === 'number' || typeof x === 'string') return String(x);
    if (Array.isArray(x)) return x.length ? walk(x[0]) : null;
    if (x && typeof x === 'object') for (const [k, y] of Object.entries(x)) if (k !== 'city') return walk(y);
    return null;
  };
  return walk(v) ?? result;
}

function argsMatch(call: ParsedToolCall, expected: Record<string, unknown>): boolean {
  const got = JSON.parse(call.arguments) as Record<string, unknown>;
  return Object.entries(expected).every(([k, v]) => String(got[k]).toLowerCase() === String(v).toLowerCase());
}

/** Tallies over the held-out agent examples. */
interface AgentCounts {
  tool: number;
  valid: number;
  right: number;
  args: number;
  continued: number;
  direct: number;
  directRight: number;
  directCalls: number;
  overflow: number;
}

/** Runs `n` held-out agent examples, greedy, and counts what each got right. */
async function evalAgentTurns(m: Model, kb: KnowledgeBase, n: number): Promise<AgentCounts> {
  const c = { tool: 0, valid: 0, right: 0, args: 0, continued: 0, direct: 0, directRight: 0, directCalls: 0, overflow: 0 };
  const gen = new AgentTurnGenerator(SEEDS.eval, kb, { heldOut: true });
  for (let i = 0; i < n; i++) {
    const ex = gen.next();
    const prompt = ex.messages.slice(0, ex.firstAnswer);
    const out = await complete(m, prompt, ex.tools, ex.expectedTool ? 96 : 256);
    if (out.overflow) c.overflow++;
    if (ex.expectedTool) {
      c.tool++;
      const names = new Set(ex.tools!.map((t) => t.function.name));
      const call = out.calls[0];
      if (call && names.has(call.name)) c.valid++;
      if (call?.name === ex.expectedTool) {
        c.right++;
        if (argsMatch(call, ex.expectedArgs!)) c.args++;
      }
      // The continuation, after the right call and its result (teacher-forced), as OpenClaw sends it.
      const toolMsg = ex.messages[ex.firstAnswer + 1];
      const cont = await complete(m, ex.messages.slice(0, ex.firstAnswer + 2), ex.tools, 96);
      if (!cont.overflow && cont.text.includes(firstValue(toolMsg.content))) c.continued++;
    } else {
      c.direct++;
      if (isCorrect(ex.task!, out.text)) c.directRight++;
      if (out.calls.length) c.directCalls++;
    }
  }
  return c;
}

/** Greedy accuracy on about `plainN` plain task questions, a quarter per family, and over all. */
async function plainAccuracy(m: Model, kb: KnowledgeBase, plainN: number): Promise<Record<string, number>> {
  const r = new Rng(SEEDS.eval);
  const perFamily = Math.ceil(plainN / TASK_FAMILIES.length);
  const plain: Record<string, number> = {};
  let plainAll = 0;
  for (const family of TASK_FAMILIES) {
    let ok = 0;
    for (let i = 0; i < perFamily; i++) {
      const t = makeTask(r, family, kb, { heldOutPhrasing: i % 2 === 0 });
      if (isCorrect(t, (await complete(m, [{ role: 'user', content: t.question }], undefined, 256)).text)) ok++;
    }
    plain[family] = ok / perFamily;
    plainAll += ok / perFamily / TASK_FAMILIES.length;
  }
  return { ...plain, all: Number(plainAll.toFixed(3)) };
}

/** The held-out figures as rates (null where nothing was asked). */
function agentFigures(c: AgentCounts, examples: number) {
  const rate = (a: number, b: number) => (b ? Number((a / b).toFixed(3)) : null);
  return {
    examples,
    prompts_over_context: c.overflow,
    tool_requests: c.tool,
    valid_tool_call: rate(c.valid, c.tool),
    right_tool: rate(c.right, c.tool),
    right_arguments: rate(c.args, c.tool),
    continuation_quotes_result: rate(c.continued, c.tool),
    direct_questions: c.direct,
    direct_accuracy: rate(c.directRight, c.direct),
    direct_tool_calls: rate(c.directCalls, c.direct),
  };
}

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: {
      model: { type: 'string' },
      n: { type: 'string', default: '80' },
      'plain-n': { type: 'string', default: '100' },
      out: { type: 'string' },
    },
  });
  const dir = path.resolve(values.model ?? defaultModelDir());
  await initBackend(undefined, { log: () => {} });
  const m = await Model.load(dir);
  const kb = JSON.parse(fs.readFileSync(path.join(ROOT, 'resources/tasks/knowledge-base.json'), 'utf8')) as KnowledgeBase;
  const t0 = performance.now();
  const counts = await evalAgentTurns(m, kb, Number(values.n));
  const plain = await plainAccuracy(m, kb, Number(values['plain-n']));
  const report = {
    model: dir,
    context: m.config.maxPositions,
    cpu: os.cpus()[0]?.model,
    minutes: Number(((performance.now() - t0) / 60000).toFixed(1)),
    held_out: agentFigures(counts, Number(values.n)),
    plain_accuracy_greedy: plain,
  };
  console.log(JSON.stringify(report, null, 2));
  if (values.out) fs.writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
  m.dispose();
}

await main();
