/**
 * Fixtures of the e2e specs: `core` (a real clawloop serve, one per worker), `app` (the page on
 * the app's URL, in Chromium or in the Electron shell), and helpers that act the way a person does.
 */
import { test as base, _electron, expect, type Locator, type Page } from '@playwright/test';
import path from 'node:path';
import { CoreProcess, ROOT } from './support/coreProcess.js';
import { electronBinary } from './support/electronApp.js';

export interface Core {
  process: CoreProcess;
  /** The URL to open the app at. */
  appUrl: string;
  origin: string;
}

async function startCore(args: string[] = []): Promise<{ core: Core; close(): Promise<void> }> {
  const process = await CoreProcess.start({ args });
  const core = { process, appUrl: process.appUrl, origin: process.origin };
  // One sample per rated answer, so that a step follows the second one as the specs expect: the
  // bundled model's policy rollouts add a sample for some hints (the judge's, when it explains the
  // complaint); the spec about them turns them on.
  // A rating is taken at once (no wait for a hint): the spec about that wait turns it on.
  await coreApi(core, 'PUT', '/api/training/config', { policy_rollouts: 0, feedback_wait_s: 0 });
  return { core, close: () => process.stop() };
}

/** Opens the app the way the project runs it: a browser tab, or the desktop app attached to `core`. */
async function openApp(page: Page, core: Core, shell: 'browser' | 'electron'): Promise<{ app: Page; close(): Promise<void> }> {
  if (shell === 'electron') {
    // The desktop app uses the core already serving its data folder (server.json) instead of starting one.
    const electronApp = await _electron.launch({
      executablePath: electronBinary()!,
      args: [path.join(ROOT, 'dist', 'electron', 'main.js')],
      env: { ...process.env, CLAWLOOP_HOME: core.process.dataDir },
    });
    return { app: await electronApp.firstWindow(), close: () => electronApp.close() };
  }
  // Signed in the way the app's key prompt does it (the printed link works once; a worker's core
  // serves many pages): the key is exchanged for the HttpOnly cookie, shared with the page, and the
  // proof, which the page keeps in its origin's storage.
  const key = core.process.key;
  if (key) {
    const res = await page.request.post(`${core.origin}/api/sign-in`, { data: { api_key: key } });
    expect(res.status()).toBe(200);
    const { session_proof } = (await res.json()) as { session_proof: string };
    await page.goto(`${core.origin}/healthz`);
    await page.evaluate((proof) => localStorage.setItem('clawloop.sessionProof', proof), session_proof);
  }
  await page.goto(`${core.origin}/`);
  return { app: page, close: async () => undefined };
}

export const test = base.extend<{ app: Page; freshCore: Core; freshApp: Page }, { core: Core; shell: 'browser' | 'electron' }>({
  shell: ['browser', { scope: 'worker', option: true }],
  core: [
    async ({}, use) => {
      const c = await startCore();
      await use(c.core);
      await c.close();
    },
    { scope: 'worker', timeout: 180_000 },
  ],
  /** A core of its own, for a spec that kills or reconfigures it. */
  freshCore: async ({}, use) => {
    const c = await startCore();
    await use(c.core);
    await c.close();
  },
  app: async ({ page, core, shell }, use) => {
    const opened = await openApp(page, core, shell);
    await expect(liveStatus(opened.app)).toBeVisible();
    await use(opened.app);
    await opened.close();
  },
  freshApp: async ({ page, freshCore, shell }, use) => {
    const opened = await openApp(page, freshCore, shell);
    await expect(liveStatus(opened.app)).toBeVisible();
    await use(opened.app);
    await opened.close();
  },
});

export { expect };

/** The header's live version, "Live: vN". */
export function liveStatus(page: Page): Locator {
  return page.getByRole('status').filter({ hasText: /Live: v\d+/ });
}

export async function headerLiveVersion(page: Page): Promise<number> {
  await expect(liveStatus(page)).toBeVisible();
  return Number(/Live: v(\d+)/.exec((await liveStatus(page).textContent()) ?? '')?.[1]);
}

export function answers(page: Page): Locator {
  return page.getByRole('article', { name: /^Answer from/ });
}

/** Sends a message in the open conversation; resolves with its answer once it is complete. */
export async function sendMessage(page: Page, text: string): Promise<Locator> {
  const before = await answers(page).count();
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(answers(page)).toHaveCount(before + 1);
  const answer = answers(page).nth(before);
  await expect(answer.getByRole('button', { name: 'Thumbs up' })).toBeVisible({ timeout: 60_000 });
  return answer;
}

/**
 * Waits until an answer shows some of its text. Its markup, not its words: a small model sometimes
 * answers with a bare list marker, which renders as an empty list item.
 */
export async function expectAnswerText(answer: Locator, timeout = 30_000): Promise<void> {
  await expectAnswerStarted(answer, timeout);
  await expect(answer.locator('.markdown-plain')).toHaveCount(0); // rendered as Markdown, not the plain text shown at start
}

/** Waits until an answer shows its first text, rendered or still plain. */
export async function expectAnswerStarted(answer: Locator, timeout = 30_000): Promise<void> {
  await expect.poll(() => answer.locator('.markdown').evaluate((el) => el.innerHTML.trim().length), { timeout }).toBeGreaterThan(0);
}

/** The adapter version an answer is labelled with. */
export async function answerVersion(answer: Locator): Promise<number> {
  const name = (await answer.getAttribute('aria-label')) ?? '';
  return Number(/Answer from v(\d+)/.exec(name)?.[1]);
}

export async function openScreen(page: Page, name: 'Chat' | 'Dashboard' | 'Checkpoints' | 'Data' | 'Connect' | 'Settings'): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeAttached();
}

/** Calls the core's API directly (to set up a state, never to check what the app shows). */
export async function coreApi(
  core: Core,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const res = await fetch(`${core.process.origin}${path}`, {
    method,
    headers: { ...core.process.authHeaders(), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const SEED_PROMPTS = [
  'How many minutes are in 3 hours?',
  'Convert 2 km to meters.',
  'A box holds 12 eggs. How many eggs are in 4 boxes?',
  'How many seconds are in 5 minutes?',
  'Convert 3 kg to grams.',
];

/** Makes sure the core has trained `steps` times (rated turns through the API), for specs about what follows. */
export async function ensureCheckpoint(core: Core, steps = 1): Promise<void> {
  const count = async () => ((await coreApi(core, 'GET', '/api/training/status')) as { step: number }).step;
  if ((await count()) >= steps) return;
  // One rated answer per round until enough steps ran (the e2e core steps on two samples).
  for (let round = 0; round < 4 * steps && (await count()) < steps; round++) {
    const res = await fetch(`${core.process.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        ...core.process.authHeaders(),
        'content-type': 'application/json',
        'x-session-id': `e2e-seed-${Date.now()}`,
        'x-turn-type': 'main',
      },
      body: JSON.stringify({ messages: [{ role: 'user', content: SEED_PROMPTS[round % SEED_PROMPTS.length] }] }),
    });
    const { id } = (await res.json()) as { id: string };
    // Mostly 👍, some 👎, so the reward plot has something to show.
    await coreApi(core, 'POST', '/v1/feedback', { completion_id: id, rating: round % 3 === 2 ? 'down' : 'up' });
    await new Promise((r) => setTimeout(r, 1500));
  }
  await expect.poll(count, { timeout: 120_000 }).toBeGreaterThanOrEqual(steps);
}

/** Runs `fn` with `patch` applied to the training settings, then puts back what they were. */
export async function withConfig(core: Core, patch: Record<string, unknown>, fn: () => Promise<void>): Promise<void> {
  const was = (await coreApi(core, 'GET', '/api/training/config')) as Record<string, unknown>;
  await coreApi(core, 'PUT', '/api/training/config', patch);
  try {
    await fn();
  } finally {
    await coreApi(core, 'PUT', '/api/training/config', Object.fromEntries(Object.keys(patch).map((k) => [k, was[k]])));
  }
}

/**
 * Runs `fn` with the competence gate off, then puts it back as it was: for specs about what
 * happens once a step goes live (the gate may hold back any step; its own behaviour is tested in
 * test/rl).
 */
export function withGateOff(core: Core, fn: () => Promise<void>): Promise<void> {
  return withConfig(core, { competence_gate: false }, fn);
}
