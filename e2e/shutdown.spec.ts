/**
 * Ctrl-C is visible in the app (walk finding 6, issue 42): while the core finishes its training
 * step it says so in a banner and refuses new messages in the same words; once the port closes the
 * banner says it has shut down.
 */
import { coreApi, expect, sendMessage, test } from './fixtures.js';

test('Ctrl-C mid-step: a banner names the step being finished, a new message is refused, then "has shut down"', async ({
  freshApp: app,
  freshCore: core,
}, testInfo) => {
  testInfo.setTimeout(240_000);
  // Two rated answers make a step on the e2e core.
  for (const text of ['How many minutes are in 3 hours?', 'Convert 2 km to meters.']) {
    const answer = await sendMessage(app, text);
    await answer.getByRole('button', { name: 'Thumbs up' }).click();
  }
  const state = async () => ((await coreApi(core, 'GET', '/api/training/status')) as { state: string }).state;
  await expect.poll(state, { timeout: 90_000, intervals: [100] }).toBe('training');

  core.process.interrupt();
  const banner = app.getByRole('alert').filter({ hasText: /^ClawLoop is shutting down: finishing training step \d+…/ });
  await expect(banner).toBeVisible({ timeout: 10_000 });
  await expect(banner).toContainText('New messages, ratings and changes are refused until ClawLoop is started again');

  await app.getByRole('textbox', { name: 'Message' }).fill('Are you still there?');
  await app.getByRole('button', { name: 'Send' }).click();
  const refusal = app.getByRole('list', { name: 'Messages' }).getByRole('alert');
  await expect(refusal).toHaveText(
    /^ClawLoop is shutting down: finishing training step \d+\. It takes no new requests until it is started again\.$/,
  );
  await expect(banner).toBeVisible(); // the core still answers: not "not answering"
  await expect(app.getByRole('alert').filter({ hasText: 'not answering' })).toHaveCount(0);
  await app.screenshot({ path: testInfo.outputPath('shutting-down.png') });
  await app.screenshot({ path: '/work/wt/appcore-shots/shutting-down-1280-light.png' }).catch(() => undefined);

  await core.process.exited();
  await expect(app.getByRole('alert').filter({ hasText: 'ClawLoop has shut down.' })).toBeVisible({ timeout: 30_000 });
});
