import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadNativeAddon, nativeLoadError } from '../../main/engine/backends/nativeAddon.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';
import { addonInfoInProcess, workersLoadingTheAddon } from '../helpers/nativeWorkers.js';

// The thread count of the native backend's kernels and BLAS: one per process, set by the first loader.
describe('native addon threads', { skip: nativeSkipReason() }, () => {
  it('the addon loads where it is built', () => {
    // Built but not loadable (e.g. built from older sources): one clear failure.
    assert.ok(loadNativeAddon(), `the native addon is built but does not load: ${nativeLoadError()}. Rebuild it: npm run build:native`);
  });

  it('a process started with CLAWLOOP_THREADS=1 runs BLAS and the kernels on 1 thread', async () => {
    const info = await addonInfoInProcess({ CLAWLOOP_THREADS: '1' });
    assert.deepEqual([info.threads, info.blasThreads], [1, 1]);
  });

  it('the first worker to load the engine sets the thread count; a second worker cannot reset it', async () => {
    // A fresh process whose main thread never loads the addon, so its first worker is the first loader.
    const r = await workersLoadingTheAddon(['1', '2']);
    assert.deepEqual(r.loaded[0], { threads: 1, blasThreads: 1 }, 'the first loader sets the count');
    assert.deepEqual(r.loaded[1], { threads: 1, blasThreads: 1 }, 'the second loader finds it set and keeps it');
    assert.deepEqual(r.firstAfterwards, { threads: 1, blasThreads: 1 }, "the first worker's setting survived the second load");
  });
});
