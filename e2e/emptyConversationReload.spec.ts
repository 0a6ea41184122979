/**
 * A conversation the core has no turn of (issue 42 walk, finding 3): a new one that was open when
 * the page reloaded, or one deleted elsewhere, opens empty, with the example prompts, and no
 * "Could not open this conversation: no session 'app-…'".
 */
import { coreApi, expect, sendMessage, test } from './fixtures.js';
import type { Page } from '@playwright/test';

const ACTIVE = 'clawloop.activeConversation';

/** One of the example prompts an empty conversation offers. */
const example = (app: Page) =>
  app.getByRole('list', { name: 'Messages' }).getByRole('button', { name: 'How many minutes are in 3 hours?', exact: true });

async function reloadOpening(app: Page, id: string): Promise<void> {
  const opened = app.waitForResponse((r) => r.url().endsWith(`/api/sessions/${id}`));
  await app.reload();
  await opened;
}

test('a conversation with no recorded turn opens empty after a reload, not as an error', async ({ app, core }) => {
  const list = app.getByRole('complementary', { name: 'Conversations' });
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  const id = (await app.evaluate((k) => localStorage.getItem(k), ACTIVE))!;
  expect(id).toMatch(/^app-/);

  await reloadOpening(app, id);
  await expect(list.getByRole('button', { name: /^New conversation \d/ }).and(app.locator('[aria-current="true"]'))).toBeVisible();
  await expect(example(app)).toBeVisible();
  await expect(app.getByText(/Could not open this conversation/)).toHaveCount(0);

  // One deleted elsewhere (another tab, the API) while it was open: empty too, and a message can be sent in it.
  await sendMessage(app, 'Convert 3 kg to grams.');
  await coreApi(core, 'DELETE', `/api/sessions/${id}`);
  await reloadOpening(app, id);
  await expect(example(app)).toBeVisible();
  await expect(app.getByRole('article', { name: /^Answer from/ })).toHaveCount(0);
  await expect(app.getByText(/Could not open this conversation/)).toHaveCount(0);
  await sendMessage(app, 'How many seconds are in 2 minutes?');
  await expect(app.getByText(/Could not open this conversation/)).toHaveCount(0);
});
