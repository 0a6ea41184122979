/**
 * Data reads as people talk about their chats (issue 42 walk, findings 10 and 11): one long word in
 * a prompt wraps inside its cell, so Feedback, Reward and Stage stay on screen at 1024×640; chat
 * conversations are named by their title, as Chat shows them, not by `app-…` ids; a turn's detail
 * is headed by its prompt and time, its ids only as secondary text.
 */
import { expect, openScreen, test, type Core } from './fixtures.js';

const LONG_WORD = 'Supercalifragilistic'.repeat(15);
const PROMPT = `${LONG_WORD} how many minutes are in 2 hours?`;
const SESSION = 'app-e2e0readable0000000001';

async function seed(core: Core): Promise<string> {
  const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...core.process.authHeaders(), 'content-type': 'application/json', 'x-session-id': SESSION, 'x-turn-type': 'main' },
    body: JSON.stringify({ messages: [{ role: 'user', content: PROMPT }], max_tokens: 16 }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

test('a long word wraps in its cell; chat sessions go by their titles; a turn is headed by its prompt, ids secondary', async ({
  app,
  core,
}, testInfo) => {
  const turnId = await seed(core);
  await app.setViewportSize({ width: 1024, height: 640 });
  await openScreen(app, 'Data');
  const table = app.getByRole('table').filter({ has: app.getByRole('columnheader', { name: 'Prompt' }) });
  await expect(table.getByRole('button', { name: new RegExp(`^${LONG_WORD.slice(0, 40)}`) })).toBeVisible();

  // Every column is on screen, and the table is no wider than its box.
  for (const name of ['Feedback', 'Reward', 'Stage']) await expect(table.getByRole('columnheader', { name })).toBeInViewport({ ratio: 1 });
  const overflow = await table.evaluate((t) => t.scrollWidth - t.parentElement!.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // The Session filter and the Sessions list name the conversation by its first message, as Chat does.
  const filter = app.getByRole('combobox', { name: 'Session' });
  await expect(filter.getByRole('option', { name: new RegExp(`^${LONG_WORD.slice(0, 40)}`) })).toHaveCount(1);
  await expect(filter.getByRole('option', { name: SESSION })).toHaveCount(0);
  const sessions = app.getByRole('region', { name: 'Sessions' });
  await expect(sessions.getByRole('button', { name: new RegExp(`^${LONG_WORD.slice(0, 40)}`) })).toBeVisible();
  await expect(sessions.getByRole('button', { name: SESSION })).toHaveCount(0);
  await expect(sessions).toContainText(`id ${SESSION}`);

  // The detail: headed by the prompt's first words and the time; the ids in a line of their own.
  await table.getByRole('button', { name: new RegExp(`^${LONG_WORD.slice(0, 40)}`) }).click();
  const detail = app.getByRole('region', { name: 'Turn detail' });
  const heading = detail.getByRole('heading', { level: 2 });
  await expect(heading).toHaveText(new RegExp(`^“${LONG_WORD.slice(0, 40)}.*…” · .*20\\d\\d`));
  await expect(heading).not.toContainText('chatcmpl-');
  await expect(detail.getByText(`Turn id ${turnId} · session id ${SESSION}`)).toBeVisible();
  await expect(detail).toContainText(`main turn in “${LONG_WORD.slice(0, 40)}`);
  await app.screenshot({ path: testInfo.outputPath('data-long-word-detail-1024.png') });
});
