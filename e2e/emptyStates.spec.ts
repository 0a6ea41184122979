/**
 * Every screen says what it shows and what to do next while it is empty (issue 42 walk, finding 5:
 * only Chat did): Checkpoints, Data and Dashboard on a fresh data folder; Data's message changes
 * once turns exist but the filters hide them all.
 */
import { expect, openScreen, test } from './fixtures.js';

test('Checkpoints, Data and Dashboard say what to do when empty; Data tells an empty folder from empty filters', async ({
  freshApp: app,
  freshCore: core,
}) => {
  await openScreen(app, 'Checkpoints');
  await expect(app.getByText('No checkpoints yet: rate answers in Chat, and a training step makes one.')).toBeVisible();
  await expect(app.getByRole('rowheader', { name: 'v0 (base model)' })).toBeVisible();

  await openScreen(app, 'Data');
  await expect(app.getByText('No turns yet: ask something in Chat.')).toBeVisible();
  await expect(app.getByRole('columnheader', { name: 'Prompt' })).toHaveCount(0);
  await expect(app.getByRole('region', { name: 'Sessions' })).toContainText('None yet');

  await openScreen(app, 'Dashboard');
  await expect(app.getByText('No training steps yet: rate answers in Chat.')).toBeVisible();
  await expect(app.getByText(/when \d+ sample\(s\) are waiting, a step runs/)).toBeVisible();

  // One turn: Data lists it; a search that matches nothing says so, not "no turns yet".
  const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...core.process.authHeaders(), 'content-type': 'application/json', 'x-session-id': 'empty-e2e', 'x-turn-type': 'main' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'How many minutes are in 3 hours?' }], max_tokens: 8 }),
  });
  expect(res.status).toBe(200);
  await openScreen(app, 'Data');
  await expect(app.getByRole('columnheader', { name: 'Prompt' })).toBeVisible();
  await expect(app.getByText('No turns yet: ask something in Chat.')).toHaveCount(0);
  await app.getByRole('searchbox', { name: 'Search' }).fill('nothing-matches-this');
  await app.getByRole('button', { name: 'Apply' }).click();
  await expect(app.getByText('No turns match these filters.')).toBeVisible();
});
