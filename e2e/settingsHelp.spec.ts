/**
 * Settings read as what they are (issue 42 walk, finding 17): the data folder is text with a Copy
 * button, not a box that looks editable; a range's reason shows on hover over the label as well as
 * the box; Dashboard's training settings are the same fields with the same help, and point to Settings.
 */
import { expect, openScreen, test } from './fixtures.js';

test('the data folder is text with Copy; the range reason is on the label too; Dashboard shows the same help and links to Settings', async ({
  app,
  core,
}) => {
  await openScreen(app, 'Settings');
  await expect(app.getByRole('textbox', { name: 'Data folder' })).toHaveCount(0);
  const folder = app.getByRole('group', { name: 'Data folder' });
  await expect(folder).toContainText(core.process.dataDir);
  await expect(folder).toHaveAccessibleDescription(/Chosen when ClawLoop starts/);
  await expect(folder.getByRole('button', { name: "Copy the data folder's path" })).toBeVisible();

  const defaults = app.getByRole('region', { name: 'Training defaults' });
  await expect(defaults.locator('label', { hasText: /^RL weight$/ })).toHaveAttribute('title', /drowns the other/);
  await expect(defaults.getByRole('textbox', { name: 'RL weight' })).toHaveAttribute('title', /drowns the other/);

  await openScreen(app, 'Dashboard');
  const key = app.getByRole('region', { name: 'Training defaults' });
  await expect(app.getByRole('heading', { name: 'Learning settings' })).toHaveCount(0);
  const weight = key.getByRole('textbox', { name: 'RL weight' });
  await expect(weight).toHaveAccessibleDescription(/0 to 10/);
  await expect(key.locator('label', { hasText: /^RL weight$/ })).toHaveAttribute('title', /drowns the other/);
  await key.getByRole('link', { name: 'Settings' }).click();
  await expect(app.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
});
