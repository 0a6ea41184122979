/**
 * What goes wrong in real use: stopping an answer mid-stream, and the core dying and coming back
 * (the banner, then recovery with nothing lost: not the conversation, its rating, nor a draft).
 */
import { answers, expect, expectAnswerStarted, expectAnswerText, liveStatus, sendMessage, test } from './fixtures.js';
import { slowChatStreams } from './support/slowStreams.js';

test('Stop mid-stream keeps what arrived, marks the answer stopped, and the next message works', async ({ freshApp: app }) => {
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  await slowChatStreams(app, 64, 150);
  await app.getByRole('textbox', { name: 'Message' }).fill('How many minutes are in 3 hours?');
  await app.getByRole('button', { name: 'Send' }).click();
  const answer = answers(app).last();
  await expectAnswerStarted(answer, 60_000);
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(answer.getByText('stopped', { exact: true })).toBeVisible();
  await expect(app.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  await expectAnswerText(answer);
  await app.evaluate(() => (window as unknown as { restoreFetch(): void }).restoreFetch());
  const next = await sendMessage(app, 'And in 2 hours?');
  await expectAnswerText(next);
});

test('the core killed and restarted: one banner with Retry, then recovery with nothing lost', async ({
  freshApp: app,
  freshCore: core,
}) => {
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  const answer = await sendMessage(app, 'How many minutes are in 3 hours?');
  await expectAnswerText(answer);
  const html = await answer.locator('.markdown').innerHTML();
  await answer.getByRole('button', { name: 'Thumbs up' }).click();
  await expect(answer.getByRole('button', { name: 'Thumbs up' })).toHaveAttribute('aria-pressed', 'true');
  await app.getByRole('textbox', { name: 'Message' }).fill('a draft typed before the crash');

  await core.process.kill();
  const banner = app.getByRole('alert').filter({ hasText: 'core is not answering' });
  await expect(banner).toBeVisible({ timeout: 30_000 });
  await expect(banner).toHaveCount(1);
  await banner.getByRole('button', { name: 'Retry' }).click();
  await expect(banner).toBeVisible();
  await app.getByRole('textbox', { name: 'Message' }).fill('a draft typed before the crash, and while it was down');

  await core.process.restart();
  await expect(banner).toBeHidden({ timeout: 60_000 });
  await expect(liveStatus(app)).toBeVisible();
  await expect(app.getByRole('textbox', { name: 'Message' })).toHaveValue('a draft typed before the crash, and while it was down');

  // A reload rebuilds everything from the core and the saved draft.
  await app.reload();
  await expect(liveStatus(app)).toBeVisible();
  const again = answers(app).first();
  await expect.poll(() => again.locator('.markdown').innerHTML()).toBe(html);
  await expect(again.getByRole('button', { name: 'Thumbs up' })).toHaveAttribute('aria-pressed', 'true');
  await expect(app.getByRole('textbox', { name: 'Message' })).toHaveValue('a draft typed before the crash, and while it was down');
});
