/** Settings refuse a folder that is not a model, with the reason next to the field. */
import { expect, openScreen, test } from './fixtures.js';

test('a bad model folder in Settings is refused with a clear error on the field', async ({ app }) => {
  await openScreen(app, 'Settings');
  const folder = app.getByRole('textbox', { name: 'Model folder' });
  await expect(folder).toBeEditable();
  await folder.fill('/tmp');
  await app.getByRole('button', { name: 'Save settings' }).click();
  await expect(folder).toHaveAttribute('aria-invalid', 'true');
  const error = app.getByRole('alert').filter({ hasText: /\/tmp/ });
  await expect(error).toBeVisible();
  await expect(error).toContainText(/config\.json|not a model|model folder/i);
  // Nothing was saved: a restart would still use the model running now.
  await app.reload();
  await expect(app.getByRole('textbox', { name: 'Model folder' })).not.toHaveValue('/tmp');
});
