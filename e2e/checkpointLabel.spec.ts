/**
 * A name and a note on a checkpoint (issue 42, what must be true 3): typed on its row, kept by the
 * core (a reload and the API show them), and cleared the same way.
 */
import { coreApi, ensureCheckpoint, expect, openScreen, test, withGateOff } from './fixtures.js';

test('a checkpoint gets a name and a note, kept by the core across a reload', async ({ app, core }) => {
  // A first step without the competence gate: with it, a busy machine spends minutes measuring the base model.
  const { step } = (await coreApi(core, 'GET', '/api/training/status')) as { step: number };
  if (step < 1) await withGateOff(core, () => ensureCheckpoint(core));
  await openScreen(app, 'Checkpoints');
  const header = (await app.getByRole('rowheader', { name: /^v\d+/ }).first().textContent()) ?? '';
  const version = /^v(\d+)/.exec(header)![1];
  const row = app.getByRole('row').filter({ has: app.getByRole('rowheader', { name: new RegExp(`^v${version}\\b`) }) });
  await row.getByRole('button', { name: 'Name and note' }).click();
  const dialog = app.getByRole('dialog', { name: `Name and note for v${version}` });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('before the units lesson');
  await dialog.getByRole('textbox', { name: 'Note' }).fill('Answers were long; kept to compare with later steps.');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(row.getByRole('rowheader')).toContainText('before the units lesson');
  await expect(row).toContainText('Note: Answers were long; kept to compare with later steps.');

  await app.reload();
  await expect(row.getByRole('rowheader')).toContainText('before the units lesson');
  const list = (await coreApi(core, 'GET', '/api/checkpoints')) as {
    data: Array<{ adapter_version: number; name: string | null; note: string | null }>;
  };
  expect(list.data.find((c) => c.adapter_version === Number(version))?.name).toBe('before the units lesson');

  // Emptied, they are gone.
  await row.getByRole('button', { name: 'Name and note' }).click();
  await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue('before the units lesson');
  await dialog.getByRole('textbox', { name: 'Name' }).fill('');
  await dialog.getByRole('textbox', { name: 'Note' }).fill('');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(row).not.toContainText('Note:');
  await expect(row.getByRole('rowheader')).not.toContainText('before the units lesson');
});
