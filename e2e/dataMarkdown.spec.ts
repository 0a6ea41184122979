/**
 * Data shows answers the way Chat does (issue 42, problem 10): rendered as Markdown by the same
 * safe renderer, in the table and in a turn's detail, never as raw `###` and `**`.
 */
import type { Route } from '@playwright/test';
import { expect, openScreen, test } from './fixtures.js';

const PROMPT = 'How many minutes are in 2 hours? (data markdown)';
// The bundled model seldom writes Markdown: the page is given a recorded answer that has some.
const ANSWER = '### Steps\n\n**Two** hours is *120* minutes.\n\n1. 60 minutes per hour';

/** Gives the seeded turn the Markdown answer wherever the page reads it (the list and the detail). */
async function withMarkdownAnswer(route: Route): Promise<void> {
  const res = await route.fetch();
  const body = (await res.json()) as { data?: Turn[] } & Turn;
  const mark = (t: Turn) => {
    if (JSON.stringify(t.messages ?? []).includes('(data markdown)')) t.response = ANSWER;
  };
  if (Array.isArray(body.data)) body.data.forEach(mark);
  else mark(body);
  await route.fulfill({ response: res, json: body });
}
interface Turn {
  messages?: unknown[];
  response?: string;
}

test('answers in the Data table and detail are rendered as Markdown, not raw ###/**', async ({ app, core }) => {
  const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...core.process.authHeaders(), 'content-type': 'application/json', 'x-session-id': 'data-e2e-md', 'x-turn-type': 'main' },
    body: JSON.stringify({ messages: [{ role: 'user', content: PROMPT }], max_tokens: 8 }),
  });
  expect(res.status).toBe(200);
  await app.route((url) => url.pathname.startsWith('/api/turns'), withMarkdownAnswer);
  await openScreen(app, 'Data');
  const row = app.getByRole('row').filter({ has: app.getByRole('button', { name: PROMPT }) });
  await expect(row).toHaveCount(1);
  await expect(row.getByRole('heading', { name: 'Steps' })).toBeAttached();
  await expect(row).toContainText('Two hours is 120 minutes.');
  await expect(row).not.toContainText('###');
  await expect(row).not.toContainText('**');

  await row.getByRole('button', { name: PROMPT }).click();
  const detail = app.getByRole('region', { name: /^Turn / });
  await expect(detail.getByRole('heading', { name: 'Steps' })).toBeVisible();
  await expect(detail.getByRole('listitem').filter({ hasText: '60 minutes per hour' })).toBeVisible();
  await expect(detail).not.toContainText('**Two**');
});
