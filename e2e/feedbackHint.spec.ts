/**
 * Rate, then explain: a hint typed a moment after 👍 joins the rating as one piece of feedback
 * (training waits feedback_wait_s after a rating), and the receipt says so.
 */
import { expect, sendMessage, test, withConfig } from './fixtures.js';

test('a hint added a moment after the rating is recorded and trains together with it', async ({ app, core }, testInfo) => {
  // A whole training step and its competence check (putting the setting back waits for them): slow on pure tfjs.
  test.setTimeout(360_000);
  // The shipped wait (the e2e core takes ratings at once for the other specs).
  await withConfig(core, { feedback_wait_s: 20 }, async () => {
    await app.getByRole('button', { name: 'New conversation', exact: true }).click();
    const first = await sendMessage(app, 'How many minutes are in 3 hours?');
    await first.getByRole('button', { name: 'Thumbs up' }).click();
    await expect(first.getByRole('status')).toHaveText(/^Rated · a hint added in the next \d+ s trains together with this rating$/);
    await app.screenshot({ path: testInfo.outputPath('rated-waiting-for-hint.png') });

    // A second rated answer fills the e2e core's batch of two: without the wait, a step would take the first now.
    const second = await sendMessage(app, 'Convert 2 km to meters.');
    await second.getByRole('button', { name: 'Thumbs up' }).click();
    await app.waitForTimeout(3000); // the person reads the answer again, then explains

    await first.getByRole('button', { name: 'Add hint' }).click();
    await first.getByRole('textbox', { name: 'Hint' }).fill('Answer with the number only.');
    await first.getByRole('button', { name: 'Submit hint' }).click();
    await expect(first.getByText(/Feedback was not recorded/)).toHaveCount(0);
    await expect(first.getByRole('status')).toHaveText(/Judged: score \+1 · your hint “Answer with the number only\.”/, {
      timeout: 60_000,
    });
    await app.screenshot({ path: testInfo.outputPath('rated-then-hinted.png') });
    await expect(first.getByRole('status')).toHaveText(/trained in step \d+|live in v\d+/, { timeout: 120_000 });
    await expect(first.getByText(/Feedback was not recorded/)).toHaveCount(0);
  });
});
