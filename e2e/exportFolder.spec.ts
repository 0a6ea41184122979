/**
 * Open-folder for exports (issue 42, what must be true 3; walk finding 15): the folder is named after
 * the version (v2), and in a browser, which cannot open a folder, it is shown with "Copy folder
 * path" and where to paste it (the desktop app adds Open folder).
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
  // Named after the version the dialog exports (v2), not the internal folder (step-000002).
  const version = /^Export (v\d+)$/.exec((await dialog.getByRole('heading').first().textContent()) ?? '')![1];
  // (v2-<name> when another spec named it, -copy-N when exported before)
  expect(dir).toMatch(new RegExp(`/exports/${version}(-[^/]+)?$`));
  expect(dir).not.toContain('step-');
  await expect(dialog.getByText('A browser cannot open folders: paste the path into your file manager or a terminal.')).toBeVisible();
  await app.screenshot({ path: '/work/wt/appcore-shots/export-done-1280-light.png' }).catch(() => undefined);
  await expect(dialog.getByRole('button', { name: 'Copy folder path' })).toHaveText('Copy folder path'); // said, not just "Copy"
  await dialog.getByRole('button', { name: 'Copy folder path' }).click();
  await expect(dialog.getByRole('button', { name: 'Copy folder path' })).toHaveText(/Copied/);
  expect(await app.evaluate(() => navigator.clipboard.readText())).toBe(dir);
});
