/**
 * A hint's receipt while its step runs (issue 42 walk, finding 12): it read "in training now:
 * feedback can no longer change", as if the hint had been refused, though the step trained on it.
 * It now says the answer is being trained on, hint included.
 */
import { coreApi, expect, sendMessage, test, withConfig, type Core } from './fixtures.js';

const PROMPTS = ['How many seconds are in 4 minutes?', 'Convert 5 kg to grams.', 'How many hours are in 3 days?'];

/** Rated answers through the API, each in a conversation of its own: they wait in the queue for a full batch. */
async function queueRated(core: Core, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        ...core.process.authHeaders(),
        'content-type': 'application/json',
        'x-session-id': `hint-receipt-e2e-${Date.now()}-${i}`,
        'x-turn-type': 'main',
      },
      body: JSON.stringify({ messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length] }] }),
    });
    const { id } = (await res.json()) as { id: string };
    await coreApi(core, 'POST', '/v1/feedback', { completion_id: id, rating: 'up' });
  }
}

test('while a step trains on a rated and hinted answer, its receipt says the hint is included', async ({ app, core }, testInfo) => {
  test.setTimeout(360_000);
  // A step of eight samples, eight optimizer passes each: long enough to open the page during it.
  await withConfig(core, { batch_size: 8, ppo_epochs: 8, competence_gate: false, feedback_wait_s: 5 }, async () => {
    await queueRated(core, 7);
    await app.getByRole('button', { name: 'New conversation', exact: true }).click();
    const first = await sendMessage(app, 'How many minutes are in 3 hours?');
    await first.getByRole('button', { name: 'Thumbs down' }).click();
    await first.getByRole('button', { name: 'Add hint' }).click();
    await first.getByRole('textbox', { name: 'Hint' }).fill('Just give the number of minutes.');
    await first.getByRole('button', { name: 'Submit hint' }).click(); // the eighth sample: a step starts

    const state = async () => ((await coreApi(core, 'GET', '/api/training/status')) as { state: string }).state;
    await expect.poll(state, { timeout: 120_000, intervals: [100] }).toBe('training');
    await app.reload(); // the receipts as the core tells them now, during the step
    const answer = app.getByRole('article', { name: /^Answer from/ }).first();
    await expect(answer.getByRole('status')).toHaveText(
      /your hint “Just give the number of minutes\.” · being trained on now, hint included$/,
    );
    await app.screenshot({ path: testInfo.outputPath('hint-being-trained.png') });
    await expect(answer.getByRole('status')).toHaveText(/trained in step \d+|live in v\d+/, { timeout: 120_000 });
  });
});
