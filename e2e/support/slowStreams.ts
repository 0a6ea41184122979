/** Chat completion streams slowed down in the page, for specs that act while an answer is being written. */
import type { Page } from '@playwright/test';

/**
 * A slow link (as over an SSH tunnel): the page's chat completion streams arrive `bytes` at a time, one piece every
 * `everyMs`, so even a short answer (about 190 bytes of JSON per token) lasts many seconds. In the page, not in
 * DevTools' network throttling: that delays each socket read as a whole, and a short answer, written by the core in
 * one go, arrives in one read, after the stream is over.
 */
export async function slowChatStreams(app: Page, bytes: number, everyMs: number): Promise<void> {
  await app.evaluate(
    ({ bytes, everyMs }) => {
      const real = window.fetch;
      (window as unknown as { restoreFetch(): void }).restoreFetch = () => (window.fetch = real);
      window.fetch = async (input, init) => {
        const res = await real(input, init);
        if (!String(input).includes('/v1/chat/completions') || !res.body) return res;
        const reader = res.body.getReader();
        const slow = new ReadableStream<Uint8Array>({
          start(controller) {
            init?.signal?.addEventListener('abort', () => controller.error(new DOMException('The user aborted a request.', 'AbortError')));
          },
          async pull(controller) {
            const { done, value } = await reader.read();
            if (done) return controller.close();
            for (let i = 0; i < value.length; i += bytes) {
              await new Promise((r) => setTimeout(r, everyMs));
              if (init?.signal?.aborted) return;
              controller.enqueue(value.slice(i, i + bytes));
            }
          },
          cancel: (reason) => reader.cancel(reason),
        });
        return new Response(slow, { status: res.status, statusText: res.statusText, headers: res.headers });
      };
    },
    { bytes, everyMs },
  );
}
