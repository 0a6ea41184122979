/**
 * Versions that add up (issue 42, problem 8): after a rollback, new answers name a version the
 * Checkpoints table lists (a rollback serves an adapter again under a number of its own); the
 * Checkpoints screen shows no folder names; during a step the Dashboard names the step in progress.
 */
import {
  answerVersion,
  coreApi,
  ensureCheckpoint,
  expect,
  headerLiveVersion,
  liveStatus,
  openScreen,
  sendMessage,
  test,
  withGateOff,
  type Core,
} from './fixtures.js';

test('after a rollback, new answers name a version the Checkpoints table lists; no folder names show', async ({ app, core }) => {
  // A rollback, and a change of settings, wait for a step in progress (and its check) to end.
  test.setTimeout(420_000);
  const { step } = (await coreApi(core, 'GET', '/api/training/status')) as { step: number };
  if (step < 1) await withGateOff(core, () => ensureCheckpoint(core));
  await openScreen(app, 'Checkpoints');
  const before = await headerLiveVersion(app);
  // Roll back to any version not live now (an earlier spec on this core may have left v0 live).
  const rollBackRow = app
    .getByRole('row')
    .filter({ has: app.getByRole('button', { name: 'Roll back', disabled: false }) })
    .first();
  const target = Number(/^v(\d+)/.exec((await rollBackRow.getByRole('rowheader').textContent()) ?? '')?.[1]);
  const row = app.getByRole('row').filter({ has: app.getByRole('rowheader', { name: new RegExp(`^v${target}\\b`) }) });
  await row.getByRole('button', { name: 'Roll back' }).click();
  await app
    .getByRole('dialog', { name: /^Make v\d+ .* live\?$/ })
    .getByRole('button', { name: `Roll back to v${target}` })
    .click();
  await expect(liveStatus(app)).not.toHaveText(`Live: v${before}`, { timeout: 300_000 });
  const live = await headerLiveVersion(app);

  // The row rolled back to names the number it is served under now, and no other row does.
  await expect(app.getByRole('rowheader', { name: new RegExp(`\\bv${live}\\b`) })).toHaveCount(1);
  await expect(row.getByRole('rowheader')).toContainText(`again as v${live}`);
  const again = target === 0 ? 'the base model again' : `v${target} again`;
  await expect(app.getByText(/^Live now: /)).toContainText(`Live now: v${live} (${again}`);
  await expect(app.getByRole('main')).not.toContainText(/step-\d{6}/);

  await openScreen(app, 'Chat');
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  const answer = await sendMessage(app, 'How many hours are in 2 days?');
  const named = await answerVersion(answer);
  expect(named).toBe(live);
  await openScreen(app, 'Checkpoints');
  await expect(app.getByRole('rowheader', { name: new RegExp(`\\bv${named}\\b`) })).toHaveCount(1);
});

test('during a step the Dashboard names the step in progress, not the last one done', async ({ app, core }) => {
  test.setTimeout(420_000);
  const done = ((await coreApi(core, 'GET', '/api/training/status')) as { step: number }).step;
  await openScreen(app, 'Dashboard');
  const panel = app.getByRole('region', { name: 'Training', exact: true });
  await expect(panel).toContainText(/State\s*\w+/);
  // Two rated answers make a step; the first moment the panel says "training", it names the step.
  await rateAnswers(core, ['How many seconds are in 4 minutes?', 'Convert 5 kg to grams.']);
  let seen = '';
  await expect
    .poll(
      async () => {
        seen = await panel.innerText();
        return /State\s*training/.test(seen);
      },
      { timeout: 360_000, intervals: [100] },
    )
    .toBe(true);
  expect(seen).toMatch(new RegExp(`Step\\s*${done + 1} (in progress \\(${done} done\\)|done, being checked)`));
  // The step ends before the next spec (a first step also measures the base model: minutes on a busy machine).
  const steps = async () => ((await coreApi(core, 'GET', '/api/training/status')) as { step: number }).step;
  await expect.poll(steps, { timeout: 360_000 }).toBeGreaterThan(done);
});

/** Asks each prompt as a new conversation and rates its answer 👍, through the API. */
async function rateAnswers(core: Core, prompts: string[]): Promise<void> {
  for (const content of prompts) {
    const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        ...core.process.authHeaders(),
        'content-type': 'application/json',
        'x-session-id': `versions-e2e-${Date.now()}`,
        'x-turn-type': 'main',
      },
      body: JSON.stringify({ messages: [{ role: 'user', content }], max_tokens: 16 }),
    });
    const { id } = (await res.json()) as { id: string };
    await coreApi(core, 'POST', '/v1/feedback', { completion_id: id, rating: 'up' });
  }
}
