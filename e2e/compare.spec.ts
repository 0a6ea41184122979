/** Compare: one prompt answered by two versions side by side; the pick is recorded as feedback. */
import { ensureCheckpoint, expect, openScreen, test, withGateOff } from './fixtures.js';

test('Compare asks both versions and records the pick as 👍 and 👎', async ({ app, core }) => {
  // A live version other than the base model (a checkpoint held back would leave v0 live: v0 against itself).
  await withGateOff(core, () => ensureCheckpoint(core));
  await openScreen(app, 'Checkpoints');
  await app
    .getByRole('row')
    .filter({ has: app.getByRole('button', { name: 'Compare' }) })
    .first()
    .getByRole('button', { name: 'Compare' })
    .click();
  const panel = app.getByRole('region', { name: 'Compare two versions' });
  // The base model against the newest checkpoint (the live version may be v0 after an earlier spec's rollback).
  const bSelect = panel.getByRole('combobox', { name: 'B' });
  const newest = Number((await bSelect.locator('option').nth(2).textContent())!.match(/^v(\d+)/)![1]);
  await panel.getByRole('combobox', { name: 'A' }).selectOption({ label: 'v0 (base model)' });
  await bSelect.selectOption({ index: 2 });
  await panel.getByRole('textbox', { name: 'Prompt' }).fill('How many seconds are in 2 minutes?');
  await panel.getByRole('button', { name: 'Ask both' }).click();
  const a = panel.getByRole('region', { name: 'Answer A' });
  const b = panel.getByRole('region', { name: 'Answer B' });
  await expect(a.getByRole('heading', { name: 'A · v0' })).toBeVisible({ timeout: 60_000 });
  await expect(b.getByRole('heading', { name: `B · v${newest}` })).toBeVisible({ timeout: 60_000 });
  await expect(panel.getByRole('button', { name: 'About the same' })).toBeEnabled({ timeout: 60_000 });
  if (await panel.getByText('The two answers are the same text: neither can be better.').isVisible()) {
    // One step may leave this prompt's greedy answer unchanged: then no winner can be picked.
    await expect(b.getByRole('button', { name: 'B is better' })).toBeDisabled();
    await panel.getByRole('button', { name: 'Both bad' }).click();
    await expect(panel.getByRole('button', { name: 'Both bad' })).toHaveAttribute('aria-pressed', 'true');
  } else {
    await b.getByRole('button', { name: 'B is better' }).click();
    await expect(panel.getByRole('status')).toHaveText('Recorded: 👍 on B, 👎 on A. Both will train.');
  }
  // Both answers are recorded turns with that feedback.
  await openScreen(app, 'Data');
  await app.getByLabel('Has feedback').selectOption('yes');
  await expect(app.getByRole('row').filter({ hasText: 'How many seconds are in 2 minutes?' })).toHaveCount(2);
});
