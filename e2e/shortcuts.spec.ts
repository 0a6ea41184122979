/**
 * The keyboard path to chatting is short (issue 42, problem 13): the message box has the focus on
 * load and a skip link reaches it; the focus stays put after Ask again and a hint; Esc stops an answer;
 * shortcuts for a new conversation, search and sending a hint, listed under the message box.
 */
import { answers, expect, sendMessage, test } from './fixtures.js';
import { slowChatStreams } from './support/slowStreams.js';

test('the message box is focused on load and two Tabs from the top reach it; the shortcuts are listed beside it', async ({ app }) => {
  const box = app.getByRole('textbox', { name: 'Message' });
  await expect(box).toBeFocused();
  await expect(box).toHaveAccessibleDescription(
    /Esc stop the answer.*Ctrl\+Shift\+O new conversation.*Ctrl\+K search conversations.*Ctrl\+Enter submit a hint/,
  );
  // From the top of the page (the header's first control): the skip links come first.
  await app.getByRole('button', { name: 'Menu' }).focus();
  await app.keyboard.press('Shift+Tab');
  await expect(app.getByRole('link', { name: 'Skip to the message box' })).toBeFocused();
  await app.keyboard.press('Shift+Tab');
  await expect(app.getByRole('link', { name: 'Skip to the screen' })).toBeFocused();
  await app.keyboard.press('Tab');
  await app.keyboard.press('Enter');
  await expect(box).toBeFocused();
});

test('Ctrl+Shift+O starts a conversation, Ctrl+K searches them, Esc stops an answer being written', async ({ app }) => {
  const box = app.getByRole('textbox', { name: 'Message' });
  await app.keyboard.press('Control+Shift+O');
  await expect(
    app
      .getByRole('complementary', { name: 'Conversations' })
      .getByRole('button', { name: /^New conversation\s*\d/ })
      .first(),
  ).toHaveAttribute('aria-current', 'true');
  await expect(box).toBeFocused();

  await slowChatStreams(app, 64, 150);
  await box.fill('Convert 4 km to meters.');
  await app.keyboard.press('Enter');
  const answer = answers(app).last();
  await expect(app.getByRole('button', { name: 'Stop' })).toBeVisible();
  await app.keyboard.press('Escape');
  await expect(answer.getByText('stopped', { exact: true })).toBeVisible();
  await app.evaluate(() => (window as unknown as { restoreFetch(): void }).restoreFetch());

  await app.keyboard.press('Control+K');
  const search = app.getByRole('searchbox', { name: 'Search conversations' });
  await expect(search).toBeFocused();
  await app.keyboard.type('4 km');
  const list = app.getByRole('complementary', { name: 'Conversations' });
  await expect(list.getByRole('button', { name: /^Convert 4 km to meters\./ })).toBeVisible();
  await app.keyboard.type(' nothing-like-this');
  await expect(list.getByText(/No conversation matches/)).toBeVisible();
});

test('the focus stays on Ask again while the answer comes, and goes back to Add hint after Ctrl+Enter sends a hint', async ({ app }) => {
  await app.keyboard.press('Control+Shift+O');
  const answer = await sendMessage(app, 'How many minutes are in 2 hours?');
  const again = answer.getByRole('button', { name: 'Ask again' });
  await again.focus();
  await app.keyboard.press('Enter');
  await expect(answer.getByText('Asked again')).toBeVisible({ timeout: 60_000 });
  await expect(answer.getByRole('button', { name: 'Ask again' })).toBeFocused();

  const add = answer.getByRole('button', { name: 'Add hint' });
  await add.focus();
  await app.keyboard.press('Enter');
  await expect(answer.getByRole('textbox', { name: 'Hint' })).toBeFocused();
  await app.keyboard.type('Answer with the number only.');
  await app.keyboard.press('Control+Enter');
  await expect(answer.getByRole('textbox', { name: 'Hint' })).toBeHidden();
  await expect(add).toBeFocused();
});
