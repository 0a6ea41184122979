/**
 * A message sent while the core is down is kept: when the core comes back (the thread is reloaded
 * from it) and after a page reload, it is still there with Regenerate, which sends it.
 */
import { answers, expect, expectAnswerText, liveStatus, sendMessage, test } from './fixtures.js';

test('a message sent while the core was down survives its return and a reload, and Regenerate sends it', async ({
  freshApp: app,
  freshCore: core,
}, testInfo) => {
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  await expectAnswerText(await sendMessage(app, 'How many minutes are in 3 hours?'));

  await core.process.kill();
  await expect(app.getByRole('alert').filter({ hasText: 'core is not answering' })).toBeVisible({ timeout: 30_000 });
  await app.getByRole('textbox', { name: 'Message' }).fill('And how many seconds is that?');
  await app.getByRole('button', { name: 'Send' }).click();
  await expect(
    answers(app)
      .last()
      .getByText(/Your message is kept/),
  ).toBeVisible({ timeout: 30_000 });

  await core.process.restart();
  await expect(app.getByRole('alert').filter({ hasText: 'core is not answering' })).toBeHidden({ timeout: 60_000 });
  await expect(liveStatus(app)).toBeVisible();
  const kept = app.getByText('And how many seconds is that?', { exact: true });
  // The reconnect reloads the thread from the core, which never got the message: it stays.
  await app.waitForTimeout(2000);
  await expect(kept).toBeVisible();
  await expect(app.getByRole('button', { name: 'Regenerate' })).toBeVisible();

  await app.reload();
  await expect(liveStatus(app)).toBeVisible();
  await expect(kept).toBeVisible();
  await expect(answers(app)).toHaveCount(2);
  await expect(
    answers(app)
      .last()
      .getByText(/Your message is kept/),
  ).toBeVisible();
  await app.screenshot({ path: testInfo.outputPath('kept-after-reload.png') });

  await app.getByRole('button', { name: 'Regenerate' }).click();
  await expect(answers(app).last().getByRole('button', { name: 'Thumbs up' })).toBeVisible({ timeout: 60_000 });
  await expectAnswerText(answers(app).last());
  await expect(app.getByText(/Your message is kept/)).toHaveCount(0);
  await app.reload();
  await expect(answers(app)).toHaveCount(2);
  await expect(kept).toHaveCount(1);
});
