/**
 * A first launch says what to do next: example prompts the bundled model answers well, the model's
 * name in the header, and each answer's tokens per second (issue 42, must-be-true 3).
 */
import { expect, sendMessage, test } from './fixtures.js';

test('a new conversation offers example prompts; the header names the model; an answer shows its speed', async ({ freshApp: app }) => {
  const thread = app.getByRole('list', { name: 'Messages' });
  await expect(thread.getByText('Try one of these:')).toBeVisible();
  await thread.getByRole('button', { name: 'Convert 2 kilometers to meters.' }).click();
  const box = app.getByRole('textbox', { name: 'Message' });
  await expect(box).toHaveValue('Convert 2 kilometers to meters.');
  await expect(box).toBeFocused();
  await expect(app.getByRole('banner').getByTitle(/^The model served: /)).toHaveText(/\S+/);

  const answer = await sendMessage(app, 'Convert 2 kilometers to meters.');
  await expect(answer.getByText(/^\d+ tokens · \d+\.\d s · \d+\.\d tokens\/s$/)).toBeVisible();
});
