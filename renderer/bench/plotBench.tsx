/**
 * The Dashboard's plots alone, fed synthetic steps, for `npm run bench:app` (built only by the
 * benchmark, never shipped). window.benchPlots appends a history, then one step per tick, and
 * returns the redraw time of every frame (all plots together).
 */
import { createRoot } from 'react-dom/client';
import { ApiClient } from '../api/client.js';
import type { Services } from '../app/services.js';
import { ServicesContext } from '../app/servicesContext.js';
import { MetricPlots } from '../dashboard/MetricPlots.js';
import { createMetricsStore, type StepPoint } from '../dashboard/metricsStore.js';
import { REDRAW_MEASURE } from '../ui/Plot.js';
import '../ui/theme.css';

const api = new ApiClient({ getKey: () => null, fetch: async () => new Response('{}', { status: 503 }) });
const metrics = createMetricsStore(api);
const services = { metrics } as unknown as Services;

function point(step: number): StepPoint {
  const r = Math.sin(step / 50) + (step % 7) / 7 - 0.5;
  return {
    step,
    reward: Math.max(-1, Math.min(1, r)),
    loss: 1 / (1 + step / 500),
    kl: step / 1e5,
    clipFraction: (step % 13) / 100,
    learningRate: 2.5e-3,
    stepSeconds: 0.5 + (step % 5) / 10,
  };
}

const frame = () => new Promise<number>((r) => requestAnimationFrame(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function benchPlots(o: { history: number; hz: number; ticks: number }): Promise<number[]> {
  const s = metrics.getState();
  for (let i = 1; i <= o.history; i++) s.appendStep(point(i));
  for (let i = 0; i < 5; i++) await frame();
  performance.clearMeasures(REDRAW_MEASURE);
  const perFrame: number[] = [];
  for (let t = 0; t < o.ticks; t++) {
    const start = performance.now();
    s.appendStep(point(o.history + t + 1));
    s.appendQueue(t % 4, Date.now());
    await frame();
    await frame();
    const spent = performance
      .getEntriesByName(REDRAW_MEASURE)
      .filter((e) => e.startTime >= start)
      .reduce((sum, e) => sum + e.duration, 0);
    perFrame.push(spent);
    await sleep(Math.max(0, 1000 / o.hz - (performance.now() - start)));
  }
  return perFrame;
}

(window as unknown as { benchPlots: typeof benchPlots }).benchPlots = benchPlots;

createRoot(document.getElementById('root')!).render(
  <ServicesContext.Provider value={services}>
    <MetricPlots />
  </ServicesContext.Provider>,
);
