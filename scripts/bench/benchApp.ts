/**
 * `npm run bench:app`: how fast the app is, measured in Debian's Chromium against a real local
 * core (the bundled model), with the CPU named:
 *   - the JavaScript bundle, gzipped (first screen and total; budget 400 KB);
 *   - first screen interactive: navigation → message box usable and the live version shown (≤ 1 s);
 *   - the Dashboard redrawing all its plots with 10,000 points, one new step at 10 Hz (< 4 ms/frame);
 *   - frames while answers stream in the chat (dropped frames, longest gap, long tasks).
 * Options: --runs N (first-screen loads, default 7), --points N (default 10000), --ticks N (default
 * 100), --chromium PATH (default /usr/bin/chromium or CLAWLOOP_CHROMIUM), --json FILE.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startBenchCore, serveFolder } from './app/benchCore.js';
import { bundleSizes, firstScreen, plotRedraw, stats, streamJank } from './app/measures.js';
import { scriptArgs } from '../scriptArgs.js';

const USAGE = `Usage: npm run bench:app -- [--runs N] [--points N] [--ticks N] [--chromium PATH] [--json FILE]

How fast the app is in Debian's Chromium against a real local core: bundle size, first screen,
dashboard redraws, frames while answers stream.`;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Builds the plot benchmark page (renderer/bench/plotBench.html) into dist/bench-app/. */
async function buildPlotBench(): Promise<string> {
  const { build } = await import('vite');
  const outDir = path.join(ROOT, 'dist', 'bench-app');
  await build({
    configFile: path.join(ROOT, 'renderer', 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, rollupOptions: { input: { plotBench: path.join(ROOT, 'renderer', 'bench', 'plotBench.html') } } },
  });
  return outDir;
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, {
    options: { runs: { type: 'string' }, points: { type: 'string' }, ticks: { type: 'string' }, chromium: { type: 'string' }, json: { type: 'string' } },
  });
  const runs = Number(values.runs ?? 7);
  const points = Number(values.points ?? 10_000);
  const ticks = Number(values.ticks ?? 100);
  const cpu = `${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores)`;
  const appDir = path.join(ROOT, 'dist', 'renderer');
  if (!fs.existsSync(path.join(appDir, 'index.html'))) throw new Error('dist/renderer is missing: run npm run build');

  const bundle = bundleSizes(appDir);
  const benchDir = await buildPlotBench();
  const page = await serveFolder(benchDir);
  const core = await startBenchCore(ROOT);
  const browser = await chromium.launch({ executablePath: values.chromium ?? process.env.CLAWLOOP_CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const first = stats(await firstScreen(browser, `${core.origin}/`, runs));
    const redraw = stats(await plotRedraw(browser, `${page.origin}/bench/plotBench.html`, points, 10, ticks));
    const jank = await streamJank(browser, `${core.origin}/`, ['How many minutes are in 3 hours?', 'Convert 5 km to meters.', 'A box holds 12 eggs. How many eggs are in 4 boxes?']);
    const result = { cpu, chromium: browser.version(), bundle, firstScreenMs: first, plotRedrawMsPerFrame: { points, hz: 10, ticks, ...redraw }, streaming: jank };
    console.log(`ClawLoop app benchmark — ${cpu}, Chromium ${browser.version()} (headless, software rendering)`);
    console.log(`  JS bundle, gzipped: first screen ${kb(bundle.firstScreen)}, all screens ${kb(bundle.total)} in ${bundle.files} files (budget 400 KB)`);
    console.log(`  first screen interactive (${runs} cold loads): median ${ms(first.median)}, max ${ms(first.max)} (budget 1000 ms)`);
    console.log(`  dashboard, ${points} points, a step at 10 Hz (${ticks} frames): redraw median ${ms(redraw.median)}, p95 ${ms(redraw.p95)}, max ${ms(redraw.max)} per frame, all 6 plots (budget 4 ms)`);
    console.log(
      `  streaming ${jank.tokens} tokens in ${jank.seconds.toFixed(1)} s: ${jank.frames} frames, ${jank.late} late (> 1.5 frame times), longest gap ${ms(jank.maxGapMs)}, ${jank.longTasks} long task(s) > 50 ms`,
    );
    if (values.json) fs.writeFileSync(values.json, JSON.stringify(result, null, 2) + '\n');
  } finally {
    await browser.close();
    await core.stop();
    await page.close();
  }
}

main().catch((err) => {
  console.error(`bench:app: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
