/**
 * The key prompt (issue 42 walk, finding 1): what failed for want of the API key loads once the key
 * is accepted. Before, the list kept "Could not load the conversations: invalid or missing API key"
 * and showed none of the earlier conversations until a manual reload.
 */
import { expect, liveStatus, test } from './fixtures.js';
import { CoreProcess } from './support/coreProcess.js';

test('after the key is accepted the conversation list loads, with the earlier conversations and no error', async ({ browser }) => {
  const core = await CoreProcess.start();
  try {
    // An earlier conversation, as the app records one (its session id, one answered message).
    const res = await fetch(`${core.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        ...core.authHeaders(),
        'content-type': 'application/json',
        'x-session-id': `app-keyprompt-${Date.now()}`,
        'x-turn-type': 'main',
      },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'How many seconds are in 4 minutes?' }], max_tokens: 8 }),
    });
    expect(res.status).toBe(200);

    const ctx = await browser.newContext(); // no cookie: the app asks for the key
    const page = await ctx.newPage();
    await page.goto(`${core.origin}/`);
    const prompt = page.getByRole('dialog', { name: /needs its API key/ });
    await expect(prompt).toBeVisible();
    const list = page.getByRole('complementary', { name: 'Conversations' });
    await expect(list.getByText(/Could not load the conversations/)).toBeVisible();

    await prompt.getByLabel('API key').fill(core.key!);
    await prompt.getByRole('button', { name: 'Use key' }).click();
    await expect(prompt).toBeHidden();
    await expect(liveStatus(page)).toBeVisible();
    await expect(list.getByRole('button', { name: /^How many seconds are in 4 minutes\?/ })).toBeVisible({ timeout: 15_000 });
    await expect(list.getByText(/Could not load the conversations/)).toHaveCount(0);
    await ctx.close();
  } finally {
    await core.stop();
  }
});
