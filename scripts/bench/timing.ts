/**
 * Median wall seconds of `iters` runs of `fn` after one warm-up run. Each run is awaited, so a
 * run that ends with a read of its result (as every benchmark's does) has finished on the device.
 */
export async function medianSeconds(fn: () => unknown, iters: number): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < iters; i++) {
    const t0 = performance.now();
    await fn();
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
