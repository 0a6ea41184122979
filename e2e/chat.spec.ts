/**
 * The loop a person goes through: chat, a streamed answer, 👍 and a hint, the receipt moving to
 * live, the dashboard and the checkpoints showing the new step and version, a roll back, and the
 * next answer labelled with the version now live.
 */
import {
  answers,
  answerVersion,
  ensureCheckpoint,
  expect,
  expectAnswerText,
  headerLiveVersion,
  liveStatus,
  openScreen,
  sendMessage,
  test,
  withConfig,
  withGateOff,
} from './fixtures.js';

test('chat → 👍 and a hint → receipt reaches live → dashboard and checkpoints show it → roll back → next answer on the new version', async ({
  app,
  core,
}) => {
  await withGateOff(core, async () => {
    await app.getByRole('button', { name: 'New conversation', exact: true }).click();
    const before = await headerLiveVersion(app);
    const answer = await sendMessage(app, 'How many minutes are in 3 hours?');
    await expectAnswerText(answer);
    expect(await answerVersion(answer)).toBe(before);

    await answer.getByRole('button', { name: 'Thumbs up' }).click();
    await expect(answer.getByRole('button', { name: 'Thumbs up' })).toHaveAttribute('aria-pressed', 'true');
    await answer.getByRole('button', { name: 'Add hint' }).click();
    await answer.getByRole('textbox', { name: 'Hint' }).fill('Answer in one sentence, without headings.');
    await answer.getByRole('button', { name: 'Submit hint' }).click();
    await expect(answer.getByRole('textbox', { name: 'Hint' })).toBeHidden();

    // A step takes two samples here: this one waits, judged, with the hint it will train with.
    const receipt = answer.getByRole('status');
    await expect(receipt).toContainText(/judged: score \+1 · your hint “Answer in one sentence, without headings\.”/i, { timeout: 60_000 });
    const second = await sendMessage(app, 'And how many in 5 hours?');
    await second.getByRole('button', { name: 'Thumbs down' }).click();
    await expect(receipt).toContainText(/live in v\d+/i, { timeout: 120_000 });
    await expect(second.getByRole('status')).toContainText(/live in v\d+/i);
    const trainedVersion = Number(/live in v(\d+)/i.exec((await receipt.textContent()) ?? '')?.[1]);
    const step = Number(/step (\d+)/i.exec((await receipt.textContent()) ?? '')?.[1]);
    expect(trainedVersion).toBeGreaterThan(before);
    await expect(liveStatus(app)).toHaveText(`Live: v${trainedVersion}`);

    await openScreen(app, 'Dashboard');
    await expect(app.getByRole('img', { name: 'Reward' })).toBeVisible();
    await expect(app.getByRole('img', { name: 'Loss' })).toBeVisible();
    await expect(app.getByText(`At step ${step}: reward`)).toBeVisible();
    await expect(app.getByText(new RegExp(`the thick one is live \\(step ${step}, v${trainedVersion}\\)`))).toBeVisible();

    await openScreen(app, 'Checkpoints');
    const row = app
      .getByRole('row')
      .filter({ hasText: `v${trainedVersion}` })
      .filter({ has: app.getByRole('button', { name: 'Export' }) });
    await expect(row).toHaveCount(1);
    await expect(row.getByText('Live', { exact: true })).toBeVisible();
    for (const name of ['Roll back', 'Pin', 'Export']) await expect(row.getByRole('button', { name })).toBeVisible();
    await row.getByRole('button', { name: 'Pin' }).click();
    await expect(row.getByRole('button', { name: 'Pin' })).toHaveAttribute('aria-pressed', 'true');

    // Roll back to the previous one: the row this checkpoint was trained from ("From").
    const from = ((await row.getByRole('cell').nth(2).textContent()) ?? '').split(',')[0].trim();
    const previous =
      from === 'v0 (base model)'
        ? app.getByRole('row').filter({ has: app.getByRole('rowheader', { name: 'v0 (base model)' }) })
        : app.getByRole('row').filter({ has: app.getByRole('rowheader', { name: from }) });
    await previous.getByRole('button', { name: 'Roll back' }).click();
    await app
      .getByRole('dialog', { name: /^Make v\d+ .* live\?$/ })
      .getByRole('button', { name: /^Roll back to v\d+$/ })
      .click();
    await expect(liveStatus(app)).not.toHaveText(`Live: v${trainedVersion}`);
    const rolledBack = await headerLiveVersion(app);
    expect(rolledBack).toBeGreaterThan(trainedVersion);
    await expect(previous.getByText('Live', { exact: true })).toBeVisible();

    await openScreen(app, 'Chat');
    const next = await sendMessage(app, 'How many minutes are in 2 hours?');
    expect(await answerVersion(next)).toBe(rolledBack);
    await expect(answers(app)).toHaveCount(3);
  });
});

test('a typed hint also trains another answer of the policy to the same prompt; the Data screen lists both samples', async ({
  freshApp: app,
  freshCore: core,
}) => {
  // The bundled model's setting (policy_rollouts: 1), on a core of its own so that no earlier
  // sample shares the step: the answer shown and the policy's other answer make a step of two.
  await withConfig(core, { competence_gate: false, policy_rollouts: 1 }, async () => {
    const prompt = 'How many minutes are in 3 hours?';
    const hint = 'Answer in one sentence, without headings.';
    const answer = await sendMessage(app, prompt);
    await expectAnswerText(answer);
    await answer.getByRole('button', { name: 'Thumbs up' }).click();
    await answer.getByRole('button', { name: 'Add hint' }).click();
    await answer.getByRole('textbox', { name: 'Hint' }).fill(hint);
    await answer.getByRole('button', { name: 'Submit hint' }).click();
    const receipt = answer.getByRole('status');
    await expect(receipt).toContainText(/live in v\d+/i, { timeout: 120_000 });
    const step = Number(/step (\d+)/i.exec((await receipt.textContent()) ?? '')?.[1]);

    await openScreen(app, 'Data');
    await app.getByRole('table').getByRole('button', { name: prompt }).click();
    const samples = app.getByRole('region', { name: /^Turn / }).getByRole('listitem');
    const trained = `trained in step ${step}`;
    const typed = ` · hint (feedback) “${hint}”`;
    await expect(samples.filter({ hasText: `both: ${trained} · reward +1 (feedback)${typed}` })).toHaveCount(1);
    await expect(samples.filter({ hasText: `opd on another answer of the policy: ${trained}${typed}` })).toHaveCount(1);
    await expect(samples.filter({ hasText: /^(rl|opd|both)\b/ })).toHaveCount(2);
  });
});

test('Roll back to before this, from an answer, asks first and makes the version before its training live', async ({ app, core }) => {
  await withGateOff(core, async () => {
    await app.getByRole('button', { name: 'New conversation', exact: true }).click();
    const first = await sendMessage(app, 'Convert 5 km to meters.');
    await first.getByRole('button', { name: 'Thumbs up' }).click();
    const answer = await sendMessage(app, 'Convert 2 km to meters.');
    await answer.getByRole('button', { name: 'Thumbs down' }).click();
    await expect(answer.getByRole('status')).toContainText(/live in v\d+/i, { timeout: 120_000 });
    const trained = await headerLiveVersion(app);
    await answer.getByRole('button', { name: 'Roll back to before this' }).click();
    const dialog = app.getByRole('dialog', { name: /Roll back to before this answer/ });
    // It names what goes live: the checkpoint the step trained from, or the base model.
    await expect(dialog).toContainText(/(v\d+ \(step \d+\)|v0, the base model with no adapter) goes live now/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(liveStatus(app)).toHaveText(`Live: v${trained}`);
    await answer.getByRole('button', { name: 'Roll back to before this' }).click();
    await app.getByRole('dialog').getByRole('button', { name: 'Roll back' }).click();
    await expect(liveStatus(app)).not.toHaveText(`Live: v${trained}`);
    // Its training is no longer live: the receipt says trained, not live.
    await expect(answer.getByRole('status')).toContainText(/trained in step \d+/i);
    await expect(answer.getByRole('status')).not.toContainText(/live in/i);
  });
});

test('checkpoint export writes a PEFT folder and lists its files', async ({ app, core }) => {
  await ensureCheckpoint(core);
  await openScreen(app, 'Checkpoints');
  const row = app
    .getByRole('row')
    .filter({ has: app.getByRole('button', { name: 'Export' }) })
    .first();
  await row.getByRole('button', { name: 'Export' }).click();
  const dialog = app.getByRole('dialog', { name: /Export v\d+/ });
  await expect(dialog.getByRole('radio', { name: /PEFT/ })).toBeChecked();
  await dialog.getByRole('button', { name: 'Write export' }).click();
  await expect(dialog.getByRole('status')).toContainText(/Exported \d+ file\(s\) to .*exports/);
  await expect(dialog.getByRole('listitem').filter({ hasText: 'adapter_config.json' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
});
