/** Pausing and resuming training from the dashboard, and the header's badge saying so. */
import { expect, openScreen, test } from './fixtures.js';

test('Pause training and Resume training: the header badge follows, in words', async ({ freshApp: app }) => {
  await openScreen(app, 'Dashboard');
  const badge = app.getByTitle('Training state');
  await expect(badge).toHaveText(/^Training (idle|starts)|^Judging turns|^Training( · \d+ queued)?$/);
  await app.getByRole('button', { name: 'Pause training' }).click();
  await expect(badge).toHaveText(/^Training paused/);
  await app.getByRole('button', { name: 'Resume training' }).click();
  await expect(badge).not.toHaveText(/paused/);
  await expect(app.getByRole('button', { name: 'Pause training' })).toBeEnabled();
});
