/**
 * A system prompt and a temperature per conversation (issue 42, what must be true 3): set in the
 * open conversation, checked as typed, sent with its messages (the recorded turn has the system
 * prompt), kept after a reload, and not carried into another conversation.
 */
import { expect, openScreen, sendMessage, test } from './fixtures.js';

test('a conversation has its own system prompt and temperature, sent with its messages and kept after a reload', async ({ app }) => {
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  await app.getByRole('button', { name: 'Conversation settings' }).click();
  const panel = app.getByRole('region', { name: 'Conversation settings' });
  await panel.getByRole('textbox', { name: 'System prompt' }).fill('You are terse. Answer with a number only.');
  const temperature = panel.getByRole('textbox', { name: 'Temperature' });
  await temperature.fill('3');
  await expect(panel.getByRole('alert')).toContainText('a number from 0 to 2');
  await temperature.fill('0.5');
  await expect(panel.getByRole('alert')).toHaveCount(0);
  await app.getByRole('button', { name: 'Conversation settings' }).click();
  await expect(app.getByText('system prompt · temperature 0.5')).toBeVisible();

  const prompt = 'How many minutes are in 4 hours? (settings e2e)';
  await sendMessage(app, prompt);
  await app.reload();
  await expect(app.getByText('system prompt · temperature 0.5')).toBeVisible();

  // Another conversation starts without them.
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  await expect(app.getByText('system prompt · temperature 0.5')).toHaveCount(0);

  // The recorded turn was asked with the system prompt first.
  await openScreen(app, 'Data');
  await app.getByRole('table').getByRole('button', { name: prompt }).click();
  const detail = app.getByRole('region', { name: /^Turn / });
  await expect(detail.getByRole('listitem').first()).toHaveText('system: You are terse. Answer with a number only.');
});
