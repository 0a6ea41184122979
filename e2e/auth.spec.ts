/**
 * A core as people start it, with the data folder's own key: the one-time link `clawloop serve`
 * prints signs the browser in (an HttpOnly cookie with a session token, and a proof the page keeps)
 * and dies on use; the key stays out of the address bar, the page's storage and every cookie. A
 * server on another port of 127.0.0.1 receives the cookie and can do nothing with it. Elsewhere,
 * and for old `#key=` links, the app asks for the key.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, liveStatus, test } from './fixtures.js';
import { CoreProcess } from './support/coreProcess.js';

/** Another local user's web server on another port: it records the Cookie header browsers send it. */
async function cookieCatcher(): Promise<{ url: string; cookies: string[]; close(): void }> {
  const cookies: string[] = [];
  const server = http.createServer((req, res) => {
    cookies.push(req.headers.cookie ?? '');
    res.end('<!doctype html><title>someone else’s page</title>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, cookies, close: () => server.close() };
}

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

    // The same browser visits another user's server on another port: it gets the cookie, not the key, and the cookie opens nothing.
    const catcher = await cookieCatcher();
    try {
      await signedIn.goto(catcher.url);
      const sent = catcher.cookies.join('; ');
      expect(sent, 'browsers send a host’s cookies to all its ports').toMatch(/clawloop_session_\d+=/);
      expect(sent).not.toContain(key);
      const replayed = await fetch(`${core.origin}/api/sessions`, { headers: { cookie: sent } });
      expect(replayed.status, 'the cookie without the page’s proof').toBe(401);
    } finally {
      catcher.close();
    }
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
    await stranger.reload(); // signed in by the cookie and proof the key was exchanged for
    await expect(liveStatus(stranger)).toBeVisible();
    await ctx.close();

    // An old-style link with the key in the fragment is not accepted: the key leaves the address bar and the app asks for it.
    const oldCtx = await browser.newContext();
    const old = await oldCtx.newPage();
    await old.goto(`${core.origin}/#key=${key}`);
    await expect(old.getByRole('dialog', { name: /needs its API key/ })).toBeVisible();
    expect(old.url()).not.toContain(key);
    await oldCtx.close();
  } finally {
    await core.stop();
  }
});
