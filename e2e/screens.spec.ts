/** Every screen, light and dark: an axe-core scan (no serious or critical issue) and a screenshot. */
import { AxeBuilder } from '@axe-core/playwright';
import path from 'node:path';
import { ROOT } from './support/coreProcess.js';
import { coreApi, ensureCheckpoint, expect, test, type Core } from './fixtures.js';

const SCREENS = ['Chat', 'Dashboard', 'Checkpoints', 'Data', 'Connect', 'Settings'] as const;

test.beforeAll(async ({ core }) => {
  // Something on every screen: recorded conversations, a few training steps and checkpoints.
  test.setTimeout(300_000);
  await ensureCheckpoint(core, 5);
  await showcase(core);
});

/** A conversation that shows what Chat does: a rated answer with a hint and its receipt, asked again beside it. */
async function showcase(core: Core): Promise<void> {
  const ask = async (messages: Array<{ role: string; content: string }>, type: 'main' | 'side') => {
    const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...core.process.authHeaders(), 'content-type': 'application/json', 'x-session-id': 'showcase', 'x-turn-type': type },
      body: JSON.stringify({ messages }),
    });
    return (await res.json()) as { id: string; choices: Array<{ message: { content: string } }> };
  };
  const q = { role: 'user', content: 'How many minutes are in 3 hours?' };
  const first = await ask([q], 'main');
  await coreApi(core, 'PATCH', '/api/sessions/showcase', { title: 'Hours and minutes' });
  await coreApi(core, 'POST', '/v1/feedback', { completion_id: first.id, rating: 'up', hint: 'Answer in one sentence, without headings.' });
  await ask([q], 'side');
  const follow = [
    q,
    { role: 'assistant', content: first.choices[0].message.content },
    { role: 'user', content: 'And how many seconds is that?' },
  ];
  await ask(follow, 'main');
}

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} scheme`, () => {
    test.use({ colorScheme: scheme });
    for (const name of SCREENS) {
      test(`${name}: no serious or critical accessibility issue; screenshot`, async ({ app }, testInfo) => {
        await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
        if (name === 'Chat') await app.getByRole('button', { name: /^Hours and minutes/ }).click();
        await expect(app.getByRole('heading', { level: 1, name })).toBeAttached();
        await app.waitForTimeout(500); // let the plots and lists draw
        const results = await new AxeBuilder({ page: app }).analyze();
        const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
        // The README's screenshots come from the browser (the Electron window cannot emulate a scheme).
        if (testInfo.project.name === 'chromium')
          await app.screenshot({ path: path.join(ROOT, 'docs', 'screenshots', `${name.toLowerCase()}-${scheme}.png`) });
      });
    }
  });
}
