/**
 * Destructive actions ask first and say what happens (issue 42, problem 7): Roll back on
 * Checkpoints names the version that goes live; Regenerate key and Remove key explain who is
 * affected. Cancel changes nothing.
 */
import { ensureCheckpoint, expect, headerLiveVersion, liveStatus, openScreen, test } from './fixtures.js';
import { CoreProcess } from './support/coreProcess.js';

test('Roll back on Checkpoints asks first, names the version, and Cancel keeps the live one', async ({ app, core }) => {
  await ensureCheckpoint(core);
  await openScreen(app, 'Checkpoints');
  const live = await headerLiveVersion(app);
  const base = app.getByRole('row').filter({ has: app.getByRole('rowheader', { name: 'v0 (base model)' }) });
  await base.getByRole('button', { name: 'Roll back' }).click();
  const dialog = app.getByRole('dialog', { name: 'Make v0 (the base model) live?' });
  await expect(dialog).toContainText(`v${live}, live now, stays in this list`);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(liveStatus(app)).toHaveText(`Live: v${live}`);

  await base.getByRole('button', { name: 'Roll back' }).click();
  await dialog.getByRole('button', { name: 'Roll back to v0' }).click();
  // A rollback waits for a step in progress to end.
  await expect(liveStatus(app)).not.toHaveText(`Live: v${live}`, { timeout: 120_000 });
  await expect(base.getByText('Live', { exact: true })).toBeVisible();
});

test('Regenerate key and Remove key ask first; Cancel keeps the key', async ({ browser }) => {
  const core = await CoreProcess.start({ args: ['--api-key', 'e2e-confirm-key-0123'] });
  try {
    const page = await browser.newPage();
    await page.goto(core.appUrl);
    await expect(liveStatus(page)).toBeVisible();
    await openScreen(page, 'Connect');
    const section = page.getByRole('region', { name: 'API key' });
    await expect(section).toContainText('A key is set');

    await section.getByRole('button', { name: 'Regenerate key' }).click();
    const regenerate = page.getByRole('dialog', { name: 'Regenerate the API key?' });
    await expect(regenerate).toContainText('refused until you give it the new one');
    await regenerate.getByRole('button', { name: 'Cancel' }).click();
    await expect(regenerate).toBeHidden();
    await expect(section.getByRole('status')).toHaveCount(0); // nothing happened

    // A new key ends every browser session but this one's: after a reload the app is still signed in.
    await section.getByRole('button', { name: 'Regenerate key' }).click();
    await regenerate.getByRole('button', { name: 'Regenerate key' }).click();
    await expect(section.getByRole('status')).toContainText('New key generated');
    await page.reload();
    await expect(liveStatus(page)).toBeVisible();
    await expect(page.getByRole('dialog', { name: /needs its API key/ })).toBeHidden();

    await section.getByRole('button', { name: 'Remove key' }).click();
    const remove = page.getByRole('dialog', { name: 'Remove the API key?' });
    await expect(remove).toContainText('any program on this machine can use the API');
    await expect(remove).toContainText('This lasts until ClawLoop restarts');
    await remove.getByRole('button', { name: 'Remove key' }).click();
    await expect(section).toContainText('No key is set');
    await expect(section).toContainText('next start takes the data folder’s key again');
    await page.close();
  } finally {
    await core.stop();
  }
});
