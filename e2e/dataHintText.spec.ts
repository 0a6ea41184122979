/**
 * A hint is shown as typed, less the characters that reorder or hide text (issue 41): an RTL
 * override in a hint would make the Data screen read it backwards ("invoice ‮gpj.exe" shows as
 * "invoice exe.jpg").
 */
import { expect, openScreen, test } from './fixtures.js';

const PROMPT = 'Name a file for the invoice. (data hint text)';

test('a hint with an RTL override reads in its typed order on the Data screen, the override dropped', async ({ app, core }) => {
  const headers = { ...core.process.authHeaders(), 'content-type': 'application/json' };
  const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...headers, 'x-session-id': 'data-e2e-bidi', 'x-turn-type': 'main' },
    body: JSON.stringify({ messages: [{ role: 'user', content: PROMPT }], max_tokens: 8 }),
  });
  expect(res.status).toBe(200);
  const { id } = (await res.json()) as { id: string };
  const fb = await fetch(`${core.process.origin}/v1/feedback`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ completion_id: id, rating: 'down', hint: 'call it invoice \u202egpj.exe' }),
  });
  expect(fb.status).toBe(200);

  await openScreen(app, 'Data');
  await app.getByRole('table').getByRole('button', { name: PROMPT }).click();
  const detail = app.getByRole('region', { name: /^Turn / });
  await expect(detail).toContainText('hint “call it invoice gpj.exe”');
  expect(await detail.textContent()).not.toContain('\u202e');
});
