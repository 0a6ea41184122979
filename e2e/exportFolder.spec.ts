/**
 * Open-folder for exports (issue 42, what must be true 3): in a browser, which cannot open a folder,
 * the written export's folder is shown with a button that copies its path (the desktop app shows it
 * in the file manager instead).
 */
import { coreApi, ensureCheckpoint, expect, openScreen, test, withGateOff } from './fixtures.js';

test('a written export shows its folder with Copy folder path (web mode)', async ({ app, core, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const { step } = (await coreApi(core, 'GET', '/api/training/status')) as { step: number };
  if (step < 1) await withGateOff(core, () => ensureCheckpoint(core));
  await openScreen(app, 'Checkpoints');
  await app.getByRole('button', { name: 'Export' }).first().click();
  const dialog = app.getByRole('dialog', { name: /^Export v\d+$/ });
  await dialog.getByRole('button', { name: 'Write export' }).click();
  const folder = dialog.getByText(/^Folder: /);
  await expect(folder).toBeVisible({ timeout: 60_000 });
  const dir = ((await folder.locator('code').textContent()) ?? '').trim();
  expect(dir).toContain('/exports/');
  await dialog.getByRole('button', { name: 'Copy folder path' }).click();
  await expect(dialog.getByRole('button', { name: 'Copy folder path' })).toHaveText(/Copied/);
  expect(await app.evaluate(() => navigator.clipboard.readText())).toBe(dir);
});
