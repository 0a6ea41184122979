/**
 * A core with an API key: the URL `clawloop serve` prints carries the key in its fragment; the app
 * keeps it and takes it out of the address bar. Without it, the app asks for the key.
 */
import { expect, liveStatus, test } from './fixtures.js';
import { CoreProcess } from './support/coreProcess.js';

const KEY = 'e2e-secret-key-0123';

test('the printed URL signs the app in, the key leaves the address bar; elsewhere the app asks for it', async ({ browser }) => {
  const core = await CoreProcess.start({ args: ['--api-key', KEY] });
  try {
    expect(core.appUrl).toContain(`#key=${KEY}`);
    const signedIn = await browser.newPage();
    await signedIn.goto(core.appUrl);
    await expect(liveStatus(signedIn)).toBeVisible();
    expect(new URL(signedIn.url()).hash).toBe('');
    await signedIn.reload();
    await expect(liveStatus(signedIn)).toBeVisible();
    await signedIn.close();

    const ctx = await browser.newContext();
    const stranger = await ctx.newPage();
    await stranger.goto(`${core.origin}/`);
    const prompt = stranger.getByRole('dialog', { name: /needs its API key/ });
    await expect(prompt).toBeVisible();
    await prompt.getByLabel('API key').fill('wrong-key-123');
    await prompt.getByRole('button', { name: 'Use key' }).click();
    await expect(prompt.getByRole('alert')).toContainText(/did not work/);
    await prompt.getByLabel('API key').fill(KEY);
    await prompt.getByRole('button', { name: 'Use key' }).click();
    await expect(prompt).toBeHidden();
    await expect(liveStatus(stranger)).toBeVisible();
    await ctx.close();
  } finally {
    await core.stop();
  }
});
