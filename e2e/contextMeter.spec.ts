/**
 * A context meter (issue 42, what must be true 3): under the message box, how much of the model's
 * context (from /api/info) the conversation fills, and a warning before sending what won't fit.
 */
import { coreApi, expect, test } from './fixtures.js';

test('the context meter fills as the draft grows and warns before sending what will not fit', async ({ app, core }) => {
  const info = (await coreApi(core, 'GET', '/api/info')) as { model: { context_length: number } };
  const context = info.model.context_length;
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  const meter = app.getByRole('meter', { name: 'Context used' });
  await expect(meter).toBeVisible();
  await expect(app.getByText(new RegExp(`about \\d+ of ${context.toLocaleString('en-US')} tokens`))).toBeVisible();

  const box = app.getByRole('textbox', { name: 'Message' });
  await box.fill('How many minutes are in 3 hours?');
  await expect(app.getByRole('alert').filter({ hasText: /won't fit/ })).toHaveCount(0);
  // Four characters a token at least: this draft cannot fit.
  await box.fill('Count the words: ' + 'word '.repeat(context));
  await expect(app.getByRole('alert').filter({ hasText: "This won't fit" })).toBeVisible();
  await expect(app.getByRole('alert')).toContainText(`at most ${context.toLocaleString('en-US')} tokens`);
  await box.fill('');
  await expect(app.getByRole('alert').filter({ hasText: /won't fit/ })).toHaveCount(0);
});
