/**
 * The app benchmark's measurements, each in a real Chromium (playwright-core). Functions that run
 * in the page reach the DOM through `globalThis` (this script compiles with Node's types only); they
 * are functions, not strings, because the app's Content-Security-Policy forbids eval.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';

export interface Stats {
  median: number;
  p95: number;
  max: number;
  mean: number;
}

export function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p95: at(0.95), max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / s.length };
}

/** Gzipped size of the JavaScript the first screen loads, and of all of it (lazy screens included). */
/* eslint-disable @typescript-eslint/no-explicit-any -- the page's globals, untyped here */
type PageGlobals = any;

function firstScreenReady(): boolean {
  const g = globalThis as PageGlobals;
  const box = g.document.querySelector('#message-input');
  const live = g.document.querySelector('.live-status')?.textContent ?? '';
  return !!box && !box.disabled && /Live: v\d+/.test(live);
}

/** Records frame gaps and long tasks while window.jank.on. */
function installJankRecorder(): void {
  const g = globalThis as PageGlobals;
  g.jank = { gaps: [], long: 0, on: false };
  new g.PerformanceObserver((l: PageGlobals) => {
    if (g.jank.on) g.jank.long += l.getEntries().length;
  }).observe({ type: 'longtask' });
  let last = g.performance.now();
  const tick = (t: number) => {
    if (g.jank.on) g.jank.gaps.push(t - last);
    last = t;
    g.requestAnimationFrame(tick);
  };
  g.requestAnimationFrame(tick);
}

export function bundleSizes(dir: string): { firstScreen: number; total: number; files: number } {
  const assets = path.join(dir, 'assets');
  const js = fs.readdirSync(assets).filter((f) => f.endsWith('.js'));
  const gz = (f: string) => gzipSync(fs.readFileSync(path.join(assets, f)), { level: 9 }).length;
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const entry = js.filter((f) => html.includes(f));
  // The entry's static imports load with it.
  const eager = new Set(entry);
  for (const f of entry) {
    const src = fs.readFileSync(path.join(assets, f), 'utf8');
    for (const m of src.matchAll(/from"\.\/([\w.-]+\.js)"/g)) eager.add(m[1]);
  }
  return { firstScreen: [...eager].reduce((a, f) => a + gz(f), 0), total: js.reduce((a, f) => a + gz(f), 0), files: js.length };
}

/**
 * Milliseconds from navigation to the first screen being usable: the message box enabled and the
 * header showing the live version (so the core answered). A new browser context each run: no cache.
 */
export async function firstScreen(browser: Browser, url: string, runs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(firstScreenReady, undefined, { polling: 'raf', timeout: 30_000 });
    out.push(await page.evaluate(() => (globalThis as PageGlobals).performance.now() as number));
    await ctx.close();
  }
  return out;
}

/** Redraw time of all Dashboard plots per frame, with `history` points, one new step at `hz`. */
export async function plotRedraw(browser: Browser, url: string, history: number, hz: number, ticks: number): Promise<number[]> {
  // Tall enough that all six plots are on screen: every one redraws each frame (the worst case).
  const page = await browser.newPage({ viewport: { width: 1280, height: 2400 } });
  await page.goto(url);
  await page.waitForFunction(() => 'benchPlots' in globalThis);
  const perFrame = (await page.evaluate((o) => (globalThis as PageGlobals).benchPlots(o), { history, hz, ticks })) as number[];
  await page.close();
  return perFrame;
}

export interface StreamJank {
  tokens: number;
  seconds: number;
  frames: number;
  /** Frames later than 1.5 × the display's frame time (a dropped frame). */
  late: number;
  maxGapMs: number;
  longTasks: number;
}

/** Streams answers in the real app and records every frame's gap and every long task meanwhile. */
export async function streamJank(browser: Browser, url: string, prompts: string[]): Promise<StreamJank> {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(firstScreenReady);
  await page.evaluate(installJankRecorder);
  let tokens = 0;
  let seconds = 0;
  for (const prompt of prompts) {
    await page.fill('#message-input', prompt);
    const t0 = Date.now();
    await page.evaluate(() => ((globalThis as PageGlobals).jank.on = true));
    const done = page.waitForResponse((r) => r.url().endsWith('/v1/chat/completions'));
    await page.keyboard.press('Enter');
    const res = await done;
    tokens += ((await res.text()).match(/"content":"[^"]+"/g) ?? []).length;
    // Streaming is over when Send is back in place of Stop.
    await page.waitForFunction(() => !!(globalThis as PageGlobals).document.querySelector('.composer button[type=submit]'), undefined, { polling: 'raf' });
    await page.evaluate(() => ((globalThis as PageGlobals).jank.on = false));
    seconds += (Date.now() - t0) / 1000;
  }
  const j = (await page.evaluate(() => (globalThis as PageGlobals).jank)) as { gaps: number[]; long: number };
  await page.close();
  const frame = stats(j.gaps).median;
  return { tokens, seconds, frames: j.gaps.length, late: j.gaps.filter((g) => g > frame * 1.5).length, maxGapMs: Math.max(...j.gaps), longTasks: j.long };
}
