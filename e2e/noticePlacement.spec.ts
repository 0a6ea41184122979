/**
 * Notices never cover a control and go after a few seconds (issue 42 walk, finding 8): they stayed
 * a minute at the bottom right, over Send and, at 1024×640, the newest answer's buttons.
 */
import { coreApi, expect, sendMessage, test } from './fixtures.js';
import type { Locator } from '@playwright/test';

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function boxOf(l: Locator): Promise<Box> {
  const b = await l.boundingBox();
  expect(b, 'the control is on screen').not.toBeNull();
  return b!;
}

test('a notice lies over no control, at 1280×800 and 1024×640, and goes by itself within seconds', async ({
  freshApp: app,
  freshCore: core,
}, testInfo) => {
  await app.getByRole('button', { name: 'New conversation', exact: true }).click();
  const answer = await sendMessage(app, 'How many minutes are in 3 hours?');
  await app.getByRole('textbox', { name: 'Message' }).fill('Convert 2 km to meters.'); // Send enabled, as when typing
  const region = app.getByRole('region', { name: 'Notifications' });
  const controls = [
    app.getByRole('button', { name: 'Send' }),
    app.getByRole('textbox', { name: 'Message' }),
    answer.getByRole('button', { name: 'Thumbs up' }),
    answer.getByRole('button', { name: 'Add hint' }),
    answer.getByRole('button', { name: 'Regenerate' }),
    app.getByRole('button', { name: 'Conversations' }),
    app.getByRole('button', { name: 'Menu' }),
  ];
  for (const [width, height] of [
    [1024, 640],
    [1280, 800],
  ]) {
    await app.setViewportSize({ width, height });
    await coreApi(core, 'POST', '/api/checkpoints/base/rollback', {});
    const notice = region.getByRole('listitem').filter({ hasText: /is live: the base model again, after a rollback/ });
    await expect(notice).toBeVisible();
    const shown = await boxOf(notice);
    for (const c of controls) expect(overlaps(shown, await boxOf(c)), `the notice covers ${c}`).toBe(false);
    await app.screenshot({ path: testInfo.outputPath(`notice-${width}.png`) });
    await expect(notice).toHaveCount(0, { timeout: 20_000 });
  }
});
