/**
 * Regenerate keeps what it replaced (issue 42, what must be true 3): the earlier answer stays a click
 * away (1/2, 2/2), the arrows keep the keyboard focus, and a reload rebuilds both from the record.
 */
import { answers, expect, expectAnswerText, sendMessage, test } from './fixtures.js';

test('Regenerate keeps the earlier answer behind 1/2 and 2/2 arrows, after a reload too', async ({ app }) => {
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  const first = await sendMessage(app, 'How many days are in 2 weeks?');
  await expectAnswerText(first);
  await first.getByRole('button', { name: 'Regenerate' }).click();
  const switcher = app.getByRole('group', { name: 'Answers to this message' });
  await expect(switcher).toContainText('2/2');
  await expect(answers(app)).toHaveCount(1);
  await expect(answers(app).first().getByRole('button', { name: 'Thumbs up' })).toBeVisible({ timeout: 60_000 });

  await switcher.getByRole('button', { name: 'Previous answer' }).click();
  await expect(switcher).toContainText('1/2');
  await expect(switcher.getByRole('button', { name: 'Previous answer' })).toBeFocused();
  await expect(switcher.getByRole('button', { name: 'Previous answer' })).toHaveAttribute('aria-disabled', 'true');
  await switcher.getByRole('button', { name: 'Next answer' }).click();
  await expect(switcher).toContainText('2/2');

  // The record has both: a reload shows the newest, with the first a click away.
  await app.reload();
  await expect(switcher).toContainText('2/2');
  await switcher.getByRole('button', { name: 'Previous answer' }).click();
  await expect(switcher).toContainText('1/2');
});
