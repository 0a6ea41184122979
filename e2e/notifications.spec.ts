/**
 * Notifications (issue 42, what must be true 3): wherever the person is in the app, a notice says
 * when a training step starts and ends and when a version goes live (or is held back), in a list
 * that screen readers announce.
 */
import { coreApi, ensureCheckpoint, expect, openScreen, test, withGateOff } from './fixtures.js';

test('a step starting and ending and a version going live are told on any screen, announced politely', async ({ app, core }) => {
  const done = ((await coreApi(core, 'GET', '/api/training/status')) as { step: number }).step;
  await openScreen(app, 'Data');
  const notices = app.getByRole('region', { name: 'Notifications' });
  await expect(notices.getByRole('list')).toHaveAttribute('aria-live', 'polite');
  const step = done + 1;
  const live = notices.getByRole('listitem').filter({ hasText: new RegExp(`^v\\d+ is live: trained in step ${step}\\.`) });
  // Watched while the step runs: a notice goes after a few seconds, a step with its check may take longer.
  await Promise.all([
    withGateOff(core, () => ensureCheckpoint(core, step)),
    (async () => {
      await expect(notices).toContainText(`Step ${step} started: training on the rated answers.`, { timeout: 120_000 });
      await expect(notices).toContainText(new RegExp(`Step ${step} done: \\d+ sample\\(s\\)`), { timeout: 120_000 });
      await expect(live).toHaveCount(1, { timeout: 120_000 });
    })(),
  ]);
  await live.getByRole('button', { name: /^Dismiss: / }).click();
  await expect(live).toHaveCount(0);
});
