import { ChatRequestError, type Model, runChatGeneration } from '../engine/index.js';
import { clipJudgeCase, fillJudgePrompt, type JudgeCase, type JudgePrompt, type JudgePrompts } from './judgePrompts.js';
import { majorityScore, parseBoxedScore, parseHint, selectLongestHint, type HintVote } from './judgeParsing.js';

/** The judge cannot read this case at all (its prompt does not fit even with the texts clipped). */
export class JudgeInputError extends Error {
  override name = 'JudgeInputError';
}

/** The judge endpoint is down or busy (unreachable, 5xx, 408, 429): every turn would fail alike, so turns wait for it. */
export class JudgeUnavailableError extends Error {
  override name = 'JudgeUnavailableError';
}

/** Character budgets tried for the response and next state when a judge prompt is too long. */
const CLIP_BUDGETS = [Infinity, 4000, 1000, 250, 60];

function tooLong(err: unknown): boolean {
  return (
    (err instanceof ChatRequestError && err.code === 'context_length_exceeded') || /maximum context length/i.test((err as Error).message)
  );
}

/**
 * Asks one vote, clipping the case's texts (keeping head and tail) until the prompt fits the
 * judge's context. The budget that worked is reused for the remaining votes.
 */
async function ask(
  backend: JudgeBackend,
  prompt: JudgePrompt,
  c: JudgeCase,
  opts: { temperature: number; maxTokens: number; seed: number; signal?: AbortSignal },
  budget: { i: number },
): Promise<string> {
  for (; budget.i < CLIP_BUDGETS.length; budget.i++) {
    const { system, user } = fillJudgePrompt(prompt, clipJudgeCase(c, CLIP_BUDGETS[budget.i]));
    try {
      return await backend.complete(system, user, opts);
    } catch (err) {
      if (!tooLong(err)) throw err;
    }
  }
  throw new JudgeInputError(
    `the judge prompt does not fit ${backend.description}'s context even with the turn's texts clipped to ${CLIP_BUDGETS.at(-1)} characters`,
  );
}

/** Something that completes a (system, user) conversation: the judge's model. */
export interface JudgeBackend {
  /** Stored with every judgement, e.g. "base model (adapter off)". */
  readonly description: string;
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
  constructor(
    private readonly model: Model,
    readonly description: string,
  ) {}

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
    const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(this.timeoutMs)]) : AbortSignal.timeout(this.timeoutMs);
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
