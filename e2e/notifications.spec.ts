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
  await withGateOff(core, () => ensureCheckpoint(core, done + 1));
  const step = done + 1;
  await expect(notices).toContainText(`Step ${step} started: training on the rated answers.`);
  await expect(notices).toContainText(new RegExp(`Step ${step} done: \\d+ sample\\(s\\)`));
  const live = notices.getByRole('listitem').filter({ hasText: new RegExp(`^v\\d+ is live: trained in step ${step}\\.`) });
  await expect(live).toHaveCount(1);
  await live.getByRole('button', { name: /^Dismiss: / }).click();
  await expect(live).toHaveCount(0);
});
