import { ChatRequestError, type Model, runChatGeneration } from '../engine/index.js';
import { fillJudgePrompt, type JudgeCase, type JudgePrompt, type JudgePrompts } from './judgePrompts.js';
import { majorityScore, parseBoxedScore, parseHint, selectLongestHint, type HintVote } from './judgeParsing.js';
import { compactJudgeCase, VIEW_BUDGETS } from './judgeView.js';

/** The judge cannot read this case at all (its prompt does not fit even with the texts clipped). */
export class JudgeInputError extends Error {
  override name = 'JudgeInputError';
}

/** The judge endpoint is down or busy (unreachable, 5xx, 408, 429): every turn would fail alike, so turns wait for it. */
export class JudgeUnavailableError extends Error {
  override name = 'JudgeUnavailableError';
}

/** A judge endpoint that took longer than its timeout (connected or not, answering or not). */
export class JudgeTimeoutError extends JudgeUnavailableError {
  override name = 'JudgeTimeoutError';
  constructor(url: string, timeoutMs: number) {
    super(`judge endpoint ${url} did not answer within ${timeoutMs / 1000} s (its timeout_s): is it hung or overloaded?`);
  }
}

function tooLong(err: unknown): boolean {
  return (
    (err instanceof ChatRequestError && err.code === 'context_length_exceeded') || /maximum context length/i.test((err as Error).message)
  );
}

type VoteOptions = { temperature: number; maxTokens: number; seed: number; signal?: AbortSignal };

/** Why a turn cannot be judged by this judge at all (the turn is then skipped with it). */
function doesNotFit(backend: JudgeBackend, detail: string): JudgeInputError {
  return new JudgeInputError(
    `the judge prompt does not fit ${backend.description}'s context ${detail} (a judge with a longer context reads it)`,
  );
}

/**
 * The judge's prompt for a case's compact view at the largest budget of {@link VIEW_BUDGETS}, from
 * `budget.i` on, that fits: counted against the judge's context (its answer's `maxTokens`
 * included) when the backend can count; otherwise the largest not yet refused (see {@link ask}).
 * Throws JudgeInputError when even the smallest view cannot fit, so the turn is skipped with the
 * reason instead of retried.
 */
function fitPrompt(backend: JudgeBackend, prompt: JudgePrompt, c: JudgeCase, maxTokens: number, budget: { i: number }) {
  const smallest = VIEW_BUDGETS.at(-1);
  for (; budget.i < VIEW_BUDGETS.length; budget.i++) {
    const filled = fillJudgePrompt(prompt, compactJudgeCase(c, VIEW_BUDGETS[budget.i]));
    const room = backend.context;
    if (!room) return filled;
    const tokens = room.countTokens(filled.system, filled.user);
    if (tokens + maxTokens <= room.tokens) return filled;
    if (budget.i === VIEW_BUDGETS.length - 1) {
      const figures = `${tokens} tokens with every text of the turn clipped to ${smallest} characters, plus ${maxTokens} for the answer`;
      throw doesNotFit(backend, `of ${room.tokens} tokens: ${figures}`);
    }
  }
  throw doesNotFit(backend, `even with the turn's texts clipped to ${smallest} characters`);
}

/**
 * Asks one vote on the compact view that fits the judge's context. A backend that cannot count
 * tokens (an endpoint) is asked the largest view first and a smaller one after each context
 * refusal, until the smallest is refused too. The budget that worked is reused for the remaining votes.
 */
async function ask(backend: JudgeBackend, prompt: JudgePrompt, c: JudgeCase, opts: VoteOptions, budget: { i: number }): Promise<string> {
  for (;;) {
    const { system, user } = fitPrompt(backend, prompt, c, opts.maxTokens, budget);
    try {
      return await backend.complete(system, user, opts);
    } catch (err) {
      if (!tooLong(err)) throw err;
      budget.i++;
    }
  }
}

/** How a judge counts its prompt against its context. */
export interface JudgeContext {
  /** The judge's context window (tokens). */
  tokens: number;
  /** Tokens of the rendered (system, user) conversation, generation prompt included. */
  countTokens(system: string, user: string): number;
}

/** Something that completes a (system, user) conversation: the judge's model. */
export interface JudgeBackend {
  /** Stored with every judgement, e.g. "base model (adapter off)". */
  readonly description: string;
  /** The judge's context, when it can be counted locally; absent for an endpoint (its refusals tell). */
  readonly context?: JudgeContext;
  complete(
    system: string,
    user: string,
    opts: { temperature: number; maxTokens: number; seed: number; signal?: AbortSignal },
  ): Promise<string>;
}

/**
 * A local model as judge, with no LoRA adapter: by default the served base model itself (the
 * frozen policy before any training), or another model folder.
 */
export class ModelJudgeBackend implements JudgeBackend {
  readonly context: JudgeContext;
  constructor(
    private readonly model: Model,
    readonly description: string,
  ) {
    this.context = {
      tokens: model.config.maxPositions,
      countTokens: (system, user) =>
        model.encodeChat({
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
          addGenerationPrompt: true,
        }).ids.length,
    };
  }

  async complete(
    system: string,
    user: string,
    opts: { temperature: number; maxTokens: number; seed: number; signal?: AbortSignal },
  ): Promise<string> {
    const r = await runChatGeneration(
      this.model,
      {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        maxTokens: opts.maxTokens,
        temperature: opts.temperature,
        seed: opts.seed,
      },
      { adapter: null, signal: opts.signal },
    );
    return r.rawText;
  }
}

/** An external OpenAI-compatible endpoint as judge (e.g. a bigger model served elsewhere). */
export class EndpointJudgeBackend implements JudgeBackend {
  readonly description: string;
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | null,
    private readonly model: string,
    private readonly timeoutMs = 120_000,
  ) {
    this.description = `endpoint ${baseUrl} (${model})`;
  }

  async complete(
    system: string,
    user: string,
    opts: { temperature: number; maxTokens: number; seed: number; signal?: AbortSignal },
  ): Promise<string> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    // One timer of our own for the whole call (connect, headers, body): an AbortSignal.timeout
    // inside AbortSignal.any can be collected before it fires, and undici then waits its own 300 s
    // for headers (the probe saw 5 min 10 s of silence, then "fetch failed").
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new JudgeTimeoutError(url, this.timeoutMs)), this.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
    try {
      return await this.call(url, system, user, opts, signal);
    } catch (err) {
      throw timeout.signal.aborted && !opts.signal?.aborted ? timeout.signal.reason : err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async call(
    url: string,
    system: string,
    user: string,
    opts: { temperature: number; maxTokens: number; seed: number },
    signal: AbortSignal,
  ): Promise<string> {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
        body: JSON.stringify({
          model: this.model,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
          temperature: opts.temperature,
          max_tokens: opts.maxTokens,
          seed: opts.seed,
          stream: false,
        }),
        signal,
      });
    } catch (err) {
      throw new JudgeUnavailableError(`judge endpoint ${url} is unreachable: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) {
      const msg = `judge endpoint ${url} answered ${res.status}: ${text.slice(0, 300)}`;
      // A 4xx will not get better by retrying the same prompt (except the context, which ask() clips).
      if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429 && !tooLong(new Error(text)))
        throw new JudgeInputError(msg);
      throw res.status >= 500 || res.status === 408 || res.status === 429 ? new JudgeUnavailableError(msg) : new Error(msg);
    }
    let body: { choices?: Array<{ message?: { content?: string | null; reasoning_content?: string | null } }> };
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`judge endpoint ${url} did not answer JSON: ${text.slice(0, 200)}`);
    }
    const msg = body.choices?.[0]?.message;
    if (!msg) throw new Error(`judge endpoint ${url} answered without choices[0].message`);
    return [msg.reasoning_content ?? '', msg.content ?? ''].filter(Boolean).join('\n');
  }
}

export interface JudgeRunOptions {
  /** Independent samples (votes). */
  votes: number;
  /** Sampling temperature of each vote. Reference 0.6. */
  temperature: number;
  /** Tokens each vote may write. */
  maxTokens: number;
  /** Vote i uses seed + i, so a judgement is reproducible. */
  seed: number;
  signal?: AbortSignal;
}

export interface PrmResult {
  votes: Array<{ raw: string; score: -1 | 0 | 1 | null }>;
  /** Majority of valid votes; ties and no valid vote give 0. */
  score: -1 | 0 | 1;
}

export interface HintResult {
  votes: Array<{ raw: string; score: -1 | 0 | 1 | null; hint: string | null }>;
  /** The longest accepted hint (docs/learning-loop.md §2 default selection), or null. */
  hint: string | null;
}

/** The evaluative judge (PRM): m votes, each ending in \boxed{1|-1|0}. */
export async function runPrmJudge(backend: JudgeBackend, prompts: JudgePrompts, c: JudgeCase, o: JudgeRunOptions): Promise<PrmResult> {
  const votes: PrmResult['votes'] = [];
  const budget = { i: 0 };
  for (let i = 0; i < o.votes; i++) {
    const raw = await ask(
      backend,
      prompts.prm,
      c,
      { temperature: o.temperature, maxTokens: o.maxTokens, seed: o.seed + i, signal: o.signal },
      budget,
    );
    votes.push({ raw, score: parseBoxedScore(raw) });
  }
  return { votes, score: majorityScore(votes.map((v) => v.score)) };
}

/** The hint judge: m votes of \boxed{1} + [HINT_START]…[HINT_END] or \boxed{-1}. */
export async function runHintJudge(backend: JudgeBackend, prompts: JudgePrompts, c: JudgeCase, o: JudgeRunOptions): Promise<HintResult> {
  const votes: HintResult['votes'] = [];
  const budget = { i: 0 };
  for (let i = 0; i < o.votes; i++) {
    const raw = await ask(
      backend,
      prompts.hint,
      c,
      { temperature: o.temperature, maxTokens: o.maxTokens, seed: o.seed + i, signal: o.signal },
      budget,
    );
    const score = parseBoxedScore(raw);
    votes.push({ raw, score, hint: score === 1 ? parseHint(raw) : null });
  }
  return { votes, hint: selectLongestHint(votes as HintVote[]) };
}
