/** Every screen, light and dark: an axe-core scan (no serious or critical issue) and a screenshot. */
import { AxeBuilder } from '@axe-core/playwright';
import path from 'node:path';
import { ROOT } from './support/coreProcess.js';
import { ensureCheckpoint, expect, test } from './fixtures.js';

const SCREENS = ['Chat', 'Dashboard', 'Checkpoints', 'Data', 'Connect', 'Settings'] as const;

test.beforeAll(async ({ core }) => {
  // Something on every screen: a recorded conversation, a training step and a checkpoint.
  await ensureCheckpoint(core);
});

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} scheme`, () => {
    test.use({ colorScheme: scheme });
    for (const name of SCREENS) {
      test(`${name}: no serious or critical accessibility issue; screenshot`, async ({ app }) => {
        await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
        await expect(app.getByRole('heading', { level: 1, name })).toBeAttached();
        await app.waitForTimeout(500); // let the plots and lists draw
        const results = await new AxeBuilder({ page: app }).analyze();
        const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
        await app.screenshot({ path: path.join(ROOT, 'docs', 'screenshots', `${name.toLowerCase()}-${scheme}.png`) });
      });
    }
  });
}
