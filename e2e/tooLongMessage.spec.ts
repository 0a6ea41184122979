/**
 * Nothing typed is lost (issue 42 walk, finding 2): a message longer than the model reads was sent,
 * the box emptied, the answer was the raw API error, and after a reload the message was gone. The
 * core's refusal now puts it back in the box, with why in words, and records nothing.
 */
import { coreApi, expect, test } from './fixtures.js';

test('a message the model cannot read comes back to the box with why, and survives a reload', async ({ app, core }) => {
  const info = (await coreApi(core, 'GET', '/api/info')) as { model: { context_length: number } };
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  const box = app.getByRole('textbox', { name: 'Message' });
  // A token a word at least: more than the model reads.
  const text = 'Count the words: ' + 'word '.repeat(info.model.context_length);
  await box.fill(text);
  await expect(app.getByRole('alert').filter({ hasText: "This won't fit" })).toBeVisible();

  await box.press('Enter');
  const note = app.getByRole('alert').filter({ hasText: /^Not sent: / });
  await expect(note).toContainText('longer than the model can read');
  await expect(box).toHaveValue(text.trim());
  const messages = app.getByRole('list', { name: 'Messages' });
  await expect(messages.getByRole('article')).toHaveCount(0);
  await expect(messages.getByText(/maximum context length/)).toHaveCount(0);

  // Send again (the button this time): refused the same way, and the note goes once the box changes.
  await app.getByRole('button', { name: 'Send' }).click();
  await expect(note).toBeVisible();
  await expect(box).toHaveValue(text.trim());
  await box.press('End');
  await box.press('Backspace');
  await expect(note).toHaveCount(0);

  await app.reload();
  await expect(app.getByRole('textbox', { name: 'Message' })).toHaveValue(text.trim().slice(0, -1));
});
