/**
 * Compare without forcing a winner: "about the same" and "both bad"; never a version against
 * itself; its conversations listed under Checkpoints (not in Chat) and named readably in Data.
 */
import { ensureCheckpoint, expect, openScreen, test, withGateOff } from './fixtures.js';

const PROMPT = 'How many grams are in 4 kilograms?';

test('Compare offers about the same and both bad, refuses a version against itself, and keeps out of Chat', async ({
  app,
  core,
}, testInfo) => {
  await withGateOff(core, () => ensureCheckpoint(core));
  await openScreen(app, 'Checkpoints');
  const row = app
    .getByRole('row')
    .filter({ has: app.getByRole('button', { name: 'Compare' }) })
    .first();
  const version = (await row.getByRole('rowheader').textContent())!.trim();
  await row.getByRole('button', { name: 'Compare' }).click();
  const panel = app.getByRole('region', { name: 'Compare two versions' });

  // The same checkpoint on both sides: nothing to compare.
  await panel.getByRole('combobox', { name: 'B' }).selectOption(await panel.getByRole('combobox', { name: 'A' }).inputValue());
  await panel.getByRole('textbox', { name: 'Prompt' }).fill(PROMPT);
  await expect(panel.getByRole('button', { name: 'Ask both' })).toBeDisabled();
  await expect(panel.getByText('A and B are the same version: choose two different versions to compare.')).toBeVisible();

  await panel.getByRole('combobox', { name: 'B' }).selectOption({ label: 'v0 (base model)' });
  await panel.getByRole('button', { name: 'Ask both' }).click();
  await expect(panel.getByRole('region', { name: 'Answer B' }).getByRole('heading', { name: 'B · v0' })).toBeVisible({ timeout: 60_000 });
  await expect(panel.getByRole('button', { name: 'About the same' })).toBeEnabled({ timeout: 120_000 });
  await panel.getByRole('button', { name: 'About the same' }).click();
  await expect(panel.getByRole('status')).toHaveText(
    'Noted as about the same: neither answer is rated, so nothing trains from this comparison.',
  );
  // Thinking again: both are bad (the e2e core trains on ratings at once, so this verdict comes last).
  await panel.getByRole('button', { name: 'Both bad' }).click();
  await expect(panel.getByRole('status')).toHaveText('Recorded: 👎 on A and on B. Both will train.');
  const past = app.getByRole('region', { name: 'Past comparisons' });
  await expect(past.getByText(`Compare ${version} vs v0 · ${PROMPT}`)).toBeVisible();
  await app.screenshot({ path: testInfo.outputPath('compare-verdicts.png'), fullPage: true });

  await openScreen(app, 'Chat');
  await expect(app.getByRole('button', { name: new RegExp(PROMPT) })).toHaveCount(0);
  await expect(app.getByRole('button', { name: /compare-/ })).toHaveCount(0);

  await openScreen(app, 'Data');
  const sessions = await app.getByRole('combobox', { name: 'Session' }).locator('option').allTextContents();
  expect(sessions.filter((s) => s.startsWith('compare-'))).toEqual([]);
  expect(sessions).toContain(`Compare ${version} vs v0 · A · ${PROMPT}`);
});
