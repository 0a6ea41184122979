/**
 * The end-to-end suite: the app in Debian's Chromium against a real `clawloop serve` (bundled
 * model, temporary data folder), and the same specs in the Electron shell where an Electron binary
 * is installed (skipped with one line where it is not).
 */
import { defineConfig, type Project } from '@playwright/test';
import { electronBinary } from './support/electronApp.js';

const chromium = process.env.CLAWLOOP_CHROMIUM ?? '/usr/bin/chromium';
const projects: Project[] = [
  {
    name: 'chromium',
    use: {
      browserName: 'chromium',
      launchOptions: {
        executablePath: chromium,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      },
    },
  },
];
// Workers load this file too; the skip is said once, by the runner.
if (electronBinary()) projects.push({ name: 'electron', use: { shell: 'electron' } as Project['use'] });
else if (!process.env.TEST_WORKER_INDEX)
  console.log(
    'e2e: electron project skipped: no Electron binary is installed (npm could not download it); the chromium project covers web mode',
  );

export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.ts$/,
  outputDir: '../dist/e2e-results',
  // One core per worker and 2 CPU cores on the build machines: one worker.
  workers: 1,
  fullyParallel: false,
  timeout: 180_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  use: { viewport: { width: 1280, height: 800 }, actionTimeout: 30_000, trace: 'retain-on-failure' },
  projects,
});
