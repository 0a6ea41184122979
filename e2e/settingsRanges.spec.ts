/**
 * Training settings have sane ranges from the method, the reason on hover, and errors in plain
 * words next to the field (issue 42, problem 6; must-be-true 5).
 */
import { coreApi, expect, openScreen, test } from './fixtures.js';

test('an RL weight of 1,000,000,000 is refused next to its field, in words, with the reason; nothing is saved', async ({ app, core }) => {
  await openScreen(app, 'Settings');
  const weight = app.getByRole('textbox', { name: 'RL weight' });
  await expect(weight).toBeEditable();
  // The range and its reason are there before anything is typed: in the help, and on hover.
  await expect(weight).toHaveAccessibleDescription(/0 to 10/);
  await expect(weight).toHaveAttribute('title', /drowns the other/);

  await weight.fill('1000000000');
  await app.getByRole('textbox', { name: 'Batch size' }).fill('2.5');
  await app.getByRole('button', { name: 'Apply settings' }).click();
  await expect(weight).toHaveAttribute('aria-invalid', 'true');
  await expect(weight).toHaveAccessibleDescription(/RL weight must be from 0 to 10; you typed 1000000000\. Why: /);
  await expect(app.getByRole('textbox', { name: 'Batch size' })).toHaveAccessibleDescription(
    /Batch size needs a whole number; you typed 2\.5/,
  );
  await expect(app.getByText(/Nothing was saved: Batch size, RL weight need fixing/)).toBeVisible();
  await expect(app.getByText(/Too small|expected int|fields marked below/)).toHaveCount(0);
  const saved = (await coreApi(core, 'GET', '/api/training/config')) as { w_rl: number };
  expect(saved.w_rl).toBeLessThanOrEqual(10);
});
