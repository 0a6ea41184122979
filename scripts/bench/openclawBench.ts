/**
 * `npm run bench:serve -- --openclaw`: time to first token of each turn of an OpenClaw-shaped
 * session (see openclawSession.ts) on ClawLoop without and with its prefix cache, and on llama.cpp
 * without and with its prompt cache, on the same random Qwen3-shaped weights. Prints a table with
 * the CPU named.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cpuLine, cpuSummary } from './cpuReport.js';
import { llamaCppSession, openclawModel, serverSession, sessionPromptIds, type TurnTiming } from './openclawSession.js';
import { openclawSystemPrompt, OPENCLAW_TOOLS } from './openclawPrompt.js';

/** A running server to send the session to, and how to stop it. */
export interface SessionServer {
  url: string;
  close: () => Promise<void>;
}

/** Starts a server on `modelDir` whose prefix cache may hold `prefixCacheBytes` (0: off; undefined: the default). */
export type StartServer = (modelDir: string, prefixCacheBytes: number | undefined) => Promise<SessionServer>;

export interface OpenclawFigures {
  cpu: string;
  prompt_chars: number;
  tools: number;
  max_tokens: number;
  clawloop: { uncached: TurnTiming[]; cached: TurnTiming[]; same_answers: boolean };
  llamacpp: { uncached_ms: number[]; cached_ms: number[]; version: string } | { error: string };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function session(start: StartServer, modelDir: string, bytes: number | undefined, maxTokens: number) {
  const s = await start(modelDir, bytes);
  try {
    await fetch(`${s.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'warm-up' }], max_tokens: 2 }),
    }).then((r) => r.text()); // compiled code paths warm before measuring
    return await serverSession(s.url, maxTokens, bytes === 0 ? 'ClawLoop' : 'ClawLoop, prefix cache');
  } finally {
    await s.close();
  }
}

function printTable(f: OpenclawFigures): void {
  const cpp = 'error' in f.llamacpp ? null : f.llamacpp;
  const reported = f.clawloop.cached.some((t) => (t.cachedTokens ?? 0) > 0);
  const col = (s: string | number, w: number) => String(s).padStart(w);
  console.log(
    `${'turn'.padEnd(5)}${col('prompt', 8)}${col('ClawLoop', 10)}${col('+cache', 9)}${col('reused', 8)}${col('speed-up', 10)}` +
      `${col('llama.cpp', 11)}${col('+cache', 9)}${col('speed-up', 10)}   (time to first token, ms)`,
  );
  f.clawloop.cached.forEach((c, i) => {
    const u = f.clawloop.uncached[i];
    const cells = [
      String(i + 1).padEnd(5),
      col(c.promptTokens, 8),
      col(u.ttftMs.toFixed(0), 10),
      col(c.ttftMs.toFixed(0), 9),
      col(reported ? String(c.cachedTokens) : '-', 8),
      col(`${(u.ttftMs / c.ttftMs).toFixed(1)}x`, 10),
      cpp
        ? col(cpp.uncached_ms[i].toFixed(0), 11) +
          col(cpp.cached_ms[i].toFixed(0), 9) +
          col(`${(cpp.uncached_ms[i] / cpp.cached_ms[i]).toFixed(1)}x`, 10)
        : '',
    ];
    console.log(cells.join(''));
  });
  const later = (xs: number[]) => median(xs.slice(1));
  const cl = later(f.clawloop.cached.map((t) => t.ttftMs));
  console.log(
    `turns 2-${f.clawloop.cached.length}, median: ClawLoop ${later(f.clawloop.uncached.map((t) => t.ttftMs)).toFixed(0)} ms -> ${cl.toFixed(0)} ms with the prefix cache` +
      (cpp
        ? `; llama.cpp ${later(cpp.uncached_ms).toFixed(0)} ms -> ${later(cpp.cached_ms).toFixed(0)} ms with its prompt cache (ClawLoop's first token in ${(cl / later(cpp.cached_ms)).toFixed(2)}x llama.cpp's time; llama.cpp is fed token ids, ClawLoop's time includes HTTP, templating and tokenizing)`
        : ''),
  );
  if (!reported) console.log('(reused: the server does not report usage.prompt_tokens_details.cached_tokens yet)');
  console.log(`answers with and without the prefix cache identical (greedy): ${f.clawloop.same_answers ? 'yes' : 'NO'}`);
  console.log(cpp ? cpp.version : (f.llamacpp as { error: string }).error);
  console.log(f.cpu);
}

/** Runs the workload in `tmp` and prints its table; returns the figures (for --json). */
export async function openclawBench(
  tmp: string,
  start: StartServer,
  maxTokens: number,
  threads = cpuSummary().threads,
): Promise<OpenclawFigures> {
  const modelDir = fs.mkdtempSync(path.join(tmp, 'openclaw-model-'));
  const { gguf } = await openclawModel(modelDir);
  const prompt = openclawSystemPrompt();
  console.log(
    `bench:serve --openclaw: a 10-turn session, system prompt ${prompt.length} characters + ${OPENCLAW_TOOLS.length} tools, ` +
      `max ${maxTokens} tokens per answer, greedy; random Qwen3-shaped model (hidden 256, 4 layers, Qwen3 vocabulary)`,
  );
  const uncached = await session(start, modelDir, 0, maxTokens);
  const cached = await session(start, modelDir, undefined, maxTokens);
  const prompts = await sessionPromptIds(modelDir, cached.answers);
  const cpp = await llamaCppSession(gguf, prompts, maxTokens, threads);
  const figures: OpenclawFigures = {
    cpu: cpuLine(cpuSummary()),
    prompt_chars: prompt.length,
    tools: OPENCLAW_TOOLS.length,
    max_tokens: maxTokens,
    clawloop: {
      uncached: uncached.turns,
      cached: cached.turns,
      same_answers: JSON.stringify(uncached.answers) === JSON.stringify(cached.answers),
    },
    llamacpp: 'error' in cpp ? cpp : { uncached_ms: cpp.uncached, cached_ms: cpp.cached, version: cpp.version },
  };
  printTable(figures);
  return figures;
}
