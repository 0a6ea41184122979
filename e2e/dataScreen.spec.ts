/**
 * Data as a person uses it (issue 42, problem 10): a text search, Export JSONL of what the filters
 * show, a row's detail in view wherever the row was, and times with their dates.
 */
import fs from 'node:fs';
import { expect, openScreen, test, type Core } from './fixtures.js';

async function seed(core: Core, session: string, content: string): Promise<void> {
  const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...core.process.authHeaders(), 'content-type': 'application/json', 'x-session-id': session, 'x-turn-type': 'main' },
    body: JSON.stringify({ messages: [{ role: 'user', content }], max_tokens: 16 }),
  });
  expect(res.status).toBe(200);
}

test('search finds turns by their words, Export JSONL writes only what is shown, a detail opens in view, times carry dates', async ({
  app,
  core,
}) => {
  await seed(core, 'data-e2e-a', 'How many grams are in 3 kg of zebrafish food?');
  await seed(core, 'data-e2e-b', 'Convert 5 km of zebrafish river to meters.');
  for (let i = 0; i < 12; i++) await seed(core, `data-e2e-fill-${i}`, `How many minutes are in ${i + 2} hours?`);
  await app.setViewportSize({ width: 1024, height: 640 });
  await openScreen(app, 'Data');
  const table = app.getByRole('table').filter({ has: app.getByRole('columnheader', { name: 'Prompt' }) });
  await expect(table.getByRole('row')).not.toHaveCount(1);
  // Times carry their date: a year is in the first cell.
  await expect(table.getByRole('row').nth(1).getByRole('cell').first()).toHaveText(/20\d\d/);

  // A row far down opens its detail in view (other specs asked the same question earlier: the lowest row).
  const low = table.getByRole('button', { name: 'How many minutes are in 2 hours?' }).last();
  await low.scrollIntoViewIfNeeded();
  await low.click();
  const detail = app.getByRole('region', { name: /^Turn / });
  await expect(detail).toBeInViewport();
  await detail.getByRole('button', { name: 'Close' }).click();

  await app.getByRole('searchbox', { name: 'Search' }).fill('ZEBRAFISH');
  await app.getByRole('button', { name: 'Apply' }).click();
  await expect(table.getByRole('row')).toHaveCount(3); // the header and two turns
  await expect(table).toContainText('zebrafish food');
  await expect(table).toContainText('zebrafish river');

  const download = app.waitForEvent('download');
  await app.getByRole('button', { name: 'Export JSONL' }).click();
  const file = await (await download).path();
  const lines = fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { session_id: string; turns: unknown[] });
  expect(lines.map((l) => l.session_id).sort()).toEqual(['data-e2e-a', 'data-e2e-b']);
  expect(lines.flatMap((l) => l.turns)).toHaveLength(2);
});
