/** The benchmark's HTTP side: chat requests the way OpenClaw sends them, and the training API. */
import type { TrainingConfig, TrainingStatus } from '../protocol/training.js';

export interface ChatReply {
  id: string;
  content: string;
  adapterVersion: number;
}

/** What the benchmark reads of a session's turns. */
export interface SessionTurns {
  turns: Array<{
    id: string;
    judgements: Array<{ kind: 'prm' | 'hint'; score: number | null; hint: string | null }>;
    samples: Array<{ hint: string | null; response: 'turn' | 'teacher' | 'policy' }>;
  }>;
}

export class BenchClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string | null = null,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { 'content-type': 'application/json', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}), ...extra };
  }

  private async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, { ...init, headers: this.headers(init.headers as Record<string, string>) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  /**
   * A main turn as the RL build of OpenClaw sends it: streamed, with X-Session-Id and
   * X-Turn-Type: main, user content as an array of text parts.
   */
  async mainTurn(
    sessionId: string,
    messages: Array<{ role: string; content: string }>,
    maxTokens: number,
    seed: number,
  ): Promise<ChatReply> {
    const res = await fetch(`${this.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: this.headers({ 'x-session-id': sessionId, 'x-turn-type': 'main', accept: 'application/json' }),
      body: JSON.stringify({
        model: 'default',
        messages: messages.map((m) => (m.role === 'user' ? { role: 'user', content: [{ type: 'text', text: m.content }] } : m)),
        stream: true,
        stream_options: { include_usage: true },
        store: false,
        max_completion_tokens: maxTokens,
        seed,
      }),
    });
    if (!res.ok || !res.body) throw new Error(`chat request answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const adapterVersion = Number(res.headers.get('x-clawloop-adapter-version') ?? 0);
    let id = '';
    let content = '';
    let buffer = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        for (const line of event.split('\n')) {
          if (!line.startsWith('data: ')) continue;
          const data = line.slice(6);
          if (data === '[DONE]') continue;
          const obj = JSON.parse(data) as { id?: string; error?: { message: string }; choices?: Array<{ delta?: { content?: string } }> };
          if (obj.error) throw new Error(`chat stream error: ${obj.error.message}`);
          if (obj.id) id = obj.id;
          content += obj.choices?.[0]?.delta?.content ?? '';
        }
      }
    }
    return { id, content, adapterVersion };
  }

  /**
   * A side request (never trained on, never judged): a conversation answered with `seed`, at the
   * model's default temperature unless `temperature` is given (0: greedy).
   */
  async sideTurn(
    messages: Array<{ role: string; content: string }>,
    o: { seed: number; maxTokens: number; temperature?: number },
  ): Promise<string> {
    const r = await this.json<{ choices: Array<{ message: { content: string | null } }> }>('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-turn-type': 'side' },
      body: JSON.stringify({ model: 'default', messages, seed: o.seed, max_tokens: o.maxTokens, temperature: o.temperature }),
    });
    return r.choices[0].message.content ?? '';
  }

  /** Every checkpoint with the competence gate's verdict (GET /api/checkpoints). */
  async checkpoints(): Promise<
    Array<{ id: string; step: number; created_at: number; competence: { accuracy: number; held_back: boolean; seconds: number } | null }>
  > {
    return (
      await this.json<{
        data: Array<{
          id: string;
          step: number;
          created_at: number;
          competence: { accuracy: number; held_back: boolean; seconds: number } | null;
        }>;
      }>('/api/checkpoints')
    ).data;
  }

  /** Every step's metrics (GET /api/metrics). */
  async metrics(): Promise<Array<{ step: number; skipped: boolean; step_ms?: number }>> {
    return (await this.json<{ data: Array<{ step: number; skipped: boolean; step_ms?: number }> }>('/api/metrics')).data;
  }

  /** Ends a session with the user's final message as the next state of its last turn (null: none). */
  async endSession(sessionId: string, message: string | null): Promise<void> {
    await this.json(`/api/sessions/${encodeURIComponent(sessionId)}/end`, {
      method: 'POST',
      body: JSON.stringify(message === null ? {} : { message: { role: 'user', content: message } }),
    });
  }

  /** 👍/👎 and an optional typed hint on a main turn, as the app sends them (POST /v1/feedback). */
  async feedback(completionId: string, rating: 'up' | 'down', hint: string | null): Promise<void> {
    await this.json('/v1/feedback', {
      method: 'POST',
      body: JSON.stringify({ completion_id: completionId, rating, ...(hint === null ? {} : { hint }) }),
    });
  }

  /** A session's turns with their judgements and samples (GET /api/sessions/{id}). */
  async session(sessionId: string): Promise<SessionTurns> {
    return this.json<SessionTurns>(`/api/sessions/${encodeURIComponent(sessionId)}`);
  }

  /** Makes a checkpoint, or 'base', live at once (POST /api/checkpoints/{id}/rollback). */
  async rollback(checkpoint: string): Promise<void> {
    await this.json(`/api/checkpoints/${encodeURIComponent(checkpoint)}/rollback`, { method: 'POST', body: '{}' });
  }

  status(): Promise<TrainingStatus> {
    return this.json<TrainingStatus>('/api/training/status');
  }

  config(): Promise<TrainingConfig> {
    return this.json<TrainingConfig>('/api/training/config');
  }

  /**
   * Waits until the trainer has judged every turn that can be judged and trained on every full
   * batch (what a user's think time between messages gives it). Returns the milliseconds waited.
   */
  async waitForTrainer(batchSize: number, timeoutMs: number): Promise<number> {
    const t0 = Date.now();
    for (;;) {
      const s = await this.status();
      const busy = s.state === 'judging' || s.state === 'training' || s.state === 'starting';
      if (s.state === 'off' || s.state === 'error' || s.state === 'paused') return Date.now() - t0;
      if (!busy && (s.pending_turns ?? 0) === 0 && s.queued_samples < batchSize) return Date.now() - t0;
      if (Date.now() - t0 > timeoutMs) throw new Error(`the trainer did not catch up within ${timeoutMs / 1000} s (state ${s.state})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
