/**
 * A core as people start it, with the data folder's own key: the one-time link `clawloop serve`
 * prints signs the browser in with an HttpOnly cookie and dies on use; nothing secret stays in the
 * address bar or the page's storage. Elsewhere the app asks for the key.
 */
import path from 'node:path';
import { expect, liveStatus, test } from './fixtures.js';
import { CoreProcess } from './support/coreProcess.js';

test('the printed link signs the app in once, and keeps no key in the page; elsewhere the app asks for it', async ({ browser }) => {
  const core = await CoreProcess.start();
  try {
    const key = core.key!;
    expect(core.appUrl).toMatch(/\/api\/sign-in\/[\w-]+$/);
    expect(core.log).not.toContain(key);
    const signedIn = await browser.newPage();
    await signedIn.goto(core.appUrl);
    await expect(liveStatus(signedIn)).toBeVisible();
    expect(new URL(signedIn.url()).pathname).toBe('/');
    expect(signedIn.url()).not.toContain(key);
    expect(await signedIn.evaluate(() => JSON.stringify(localStorage) + document.cookie)).not.toContain(key);
    await signedIn.reload();
    await expect(liveStatus(signedIn)).toBeVisible();
    expect((await signedIn.goto(core.appUrl))?.status(), 'the link works once').toBe(403);
    await signedIn.close();

    const ctx = await browser.newContext();
    const stranger = await ctx.newPage();
    await stranger.goto(`${core.origin}/`);
    const prompt = stranger.getByRole('dialog', { name: /needs its API key/ });
    await expect(prompt).toBeVisible();
    // Walk finding 13: the core runs with --data-dir, so the prompt must not call ~/.clawloop "the data
    // folder"; it says how to find the key, and the console names the real file.
    await expect(prompt).toContainText('Its start-up log says where the key is (“the API key is in …”)');
    await expect(prompt).toContainText('--data-dir, else $CLAWLOOP_HOME, else ~/.clawloop');
    await expect(prompt).not.toContainText('data folder (~/.clawloop)');
    expect(core.log).toContain(`the API key is in ${path.join(core.dataDir, 'api-key')}`);
    await stranger.screenshot({ path: '/work/wt/appcore-shots/key-prompt-1280-light.png' }).catch(() => undefined);
    await prompt.getByLabel('API key').fill('wrong-key-123');
    await prompt.getByRole('button', { name: 'Use key' }).click();
    await expect(prompt.getByRole('alert')).toContainText(/did not work/);
    await prompt.getByLabel('API key').fill(key);
    await prompt.getByRole('button', { name: 'Use key' }).click();
    await expect(prompt).toBeHidden();
    await expect(liveStatus(stranger)).toBeVisible();
    await stranger.reload(); // signed in by the cookie the key was exchanged for
    await expect(liveStatus(stranger)).toBeVisible();
    await ctx.close();
  } finally {
    await core.stop();
  }
});
