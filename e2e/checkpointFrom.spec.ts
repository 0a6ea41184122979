/**
 * Checkpoints' "From" column says in words why training went back to an earlier checkpoint (issue
 * 42 walk, finding 14: it read "v2 branch", explained nowhere).
 */
import { coreApi, ensureCheckpoint, expect, openScreen, test, withGateOff } from './fixtures.js';

interface Listed {
  data: Array<{ id: string; step: number; adapter_version: number }>;
}

test('a checkpoint trained after a rollback reads "v1, after a rollback" under From, with the story on hover', async ({
  freshApp: app,
  freshCore: core,
}) => {
  test.setTimeout(420_000);
  await withGateOff(core, async () => {
    await ensureCheckpoint(core, 2);
    const first = ((await coreApi(core, 'GET', '/api/checkpoints')) as Listed).data.find((c) => c.step === 1)!;
    await coreApi(core, 'POST', `/api/checkpoints/${first.id}/rollback`, {});
    await ensureCheckpoint(core, 3);
  });
  const rows = ((await coreApi(core, 'GET', '/api/checkpoints')) as Listed).data;
  const first = rows.find((c) => c.step === 1)!;
  const second = rows.find((c) => c.step === 2)!;
  const third = rows.find((c) => c.step === 3)!;

  await openScreen(app, 'Checkpoints');
  const row = app.getByRole('row').filter({ has: app.getByRole('rowheader', { name: new RegExp(`^v${third.adapter_version}\\b`) }) });
  const from = row.getByRole('cell').nth(2);
  await expect(from).toContainText(`v${first.adapter_version}, after a rollback`);
  await expect(from).not.toContainText('branch');
  await expect(from.getByTitle(new RegExp(`v${second.adapter_version} and what followed it are not in this line`))).toBeVisible();
  await expect(app.getByRole('table').getByText(/“after a rollback”: training went back to an earlier one/)).toBeVisible();
});
