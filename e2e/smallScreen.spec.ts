/**
 * At 1024×640 (issue 42, problem 12): the side columns collapse, Rename opens prefilled with Save in
 * view, the hint form opens in view, and the Checkpoints table shows every action.
 */
import { ensureCheckpoint, expect, openScreen, sendMessage, test } from './fixtures.js';

test.use({ viewport: { width: 1024, height: 640 } });

test('the menu and the conversation list collapse; Rename is prefilled with Save in view; the hint form opens in view', async ({ app }) => {
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  const answer = await sendMessage(app, 'How many minutes are in 5 hours?');
  const box = app.getByRole('textbox', { name: 'Message' });
  const narrow = (await box.boundingBox())!.width;

  await app.getByRole('button', { name: 'Menu' }).click();
  await expect(app.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await app.getByRole('button', { name: 'Conversations', exact: true }).click();
  await expect(app.getByRole('complementary', { name: 'Conversations' })).toBeHidden();
  expect((await box.boundingBox())!.width).toBeGreaterThan(narrow + 300);
  await app.getByRole('button', { name: 'Conversations', exact: true }).click();
  await app.getByRole('button', { name: 'Menu' }).click();
  await expect(app.getByRole('navigation', { name: 'Main' })).toBeVisible();

  const list = app.getByRole('complementary', { name: 'Conversations' });
  // The open conversation's row: another run against the same data folder may have asked this too.
  const row = list.getByRole('listitem').filter({ has: app.locator('[aria-current="true"]') });
  await row.getByRole('button', { name: /^Rename How many minutes are in 5 hours\?/ }).click();
  await expect(list.getByRole('textbox', { name: 'Conversation title' })).toHaveValue('How many minutes are in 5 hours?');
  await expect(list.getByRole('button', { name: 'Save' })).toBeInViewport({ ratio: 1 });
  await app.keyboard.press('Escape');

  await answer.getByRole('button', { name: 'Add hint' }).click();
  await expect(answer.getByRole('button', { name: 'Submit hint' })).toBeInViewport({ ratio: 1 });
});

test('the Checkpoints table fits: every action of a row is on screen', async ({ app, core }) => {
  await ensureCheckpoint(core);
  await openScreen(app, 'Checkpoints');
  const row = app
    .getByRole('row')
    .filter({ has: app.getByRole('button', { name: 'Export' }) })
    .first();
  for (const name of ['Roll back', 'Pin', 'Export', 'Compare']) {
    const b = (await row.getByRole('button', { name }).boundingBox())!;
    expect(b.x + b.width, name).toBeLessThanOrEqual(1024);
  }
});
