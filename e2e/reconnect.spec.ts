/**
 * After an outage the Dashboard mends itself, and the header does not claim "Training" while the
 * core is away (issue 42, problem 11).
 */
import { expect, liveStatus, openScreen, test } from './fixtures.js';

test('the Dashboard opened during an outage reloads by itself once the core is back; the header says the core is away', async ({
  freshApp: app,
  freshCore: core,
}) => {
  const state = app.getByTitle('Training state');
  await expect(state).toBeVisible();
  // The Dashboard was seen once (its code is loaded); it is opened again during the outage.
  await openScreen(app, 'Dashboard');
  await openScreen(app, 'Chat');
  await core.process.kill();
  const banner = app.getByRole('alert').filter({ hasText: 'core is not answering' });
  await expect(banner).toBeVisible({ timeout: 30_000 });
  await expect(state).toHaveText('Core not reachable');

  await openScreen(app, 'Dashboard');
  await expect(app.getByText(/Could not load the training settings/)).toBeVisible({ timeout: 30_000 });

  await core.process.restart();
  await expect(banner).toBeHidden({ timeout: 60_000 });
  await expect(liveStatus(app)).toBeVisible();
  await expect(state).not.toHaveText('Core not reachable');
  // No reload: the settings and the history come back on their own.
  await expect(app.getByRole('textbox', { name: 'Batch size' })).toBeVisible({ timeout: 30_000 });
  await expect(app.getByText(/Could not load/)).toHaveCount(0);
});
