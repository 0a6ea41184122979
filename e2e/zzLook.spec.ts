import { openScreen, test } from './fixtures.js';
for (const scheme of ['light', 'dark'] as const)
  for (const [w, h] of [[1280, 800], [1024, 640]] as const)
    test(`look ${scheme} ${w}`, async ({ page, app }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: w, height: h });
      for (const name of ['Chat', 'Checkpoints', 'Data', 'Settings', 'Connect'] as const) {
        await openScreen(app, name);
        if (name === 'Chat') await app.getByRole('button', { name: /^Convert 2 km to meters\./ }).first().click().catch(() => undefined);
        await app.waitForTimeout(400);
        await app.screenshot({ path: `/tmp/look/${name}-${scheme}-${w}.png` });
      }
    });
