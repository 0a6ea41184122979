import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { initBackend } from '../../main/engine/backends/backend.js';
import { loadNativeAddon, nativeLoadError, nativeWanted, threadCount } from '../../main/engine/backends/nativeAddon.js';
import { nativeWasmKernelsActive } from '../../main/engine/backends/wasmKernels.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';

// What needs no addon: which kernels this process runs, and the thread-count setting's parsing.
// The native kernels themselves are tested in native.test.ts.
const NATIVE = nativeWanted();
const SKIP = nativeSkipReason();

/** What this process should run: native kernels, pure tfjs by request, or pure tfjs for want of the addon. */
const MODE = !NATIVE
  ? 'CLAWLOOP_NATIVE=0 runs pure tfjs'
  : SKIP
    ? 'without the addon the engine runs pure tfjs and says how to build it'
    : 'the addon is built and serves the wasm backend';

describe('native kernels: the mode of this process', () => {
  before(async () => {
    await initBackend('wasm');
  });

  it(MODE, () => {
    if (!NATIVE || SKIP) {
      assert.equal(loadNativeAddon(), null);
      assert.match(
        nativeLoadError()!,
        NATIVE ? /is not built.*libopenblas-pthread-dev.*npm run build:native/ : /disabled by CLAWLOOP_NATIVE/,
      );
      assert.equal(nativeWasmKernelsActive(), false);
      return;
    }
    assert.ok(loadNativeAddon(), `the native addon did not load: ${nativeLoadError()}. Build it with: npm run build:native`);
    assert.equal(nativeWasmKernelsActive(), true);
    const info = loadNativeAddon()!.info();
    assert.ok(info.threads >= 1 && info.blas.length > 0);
  });

  it('CLAWLOOP_THREADS caps the threads and is validated', () => {
    assert.equal(threadCount({ CLAWLOOP_THREADS: '1' }), 1);
    assert.equal(threadCount({ CLAWLOOP_THREADS: ' 3 ' }), 3);
    assert.ok(threadCount({}) >= 1);
    assert.throws(() => threadCount({ CLAWLOOP_THREADS: 'many' }), /CLAWLOOP_THREADS is 'many'; expected a positive integer/);
    assert.throws(() => threadCount({ CLAWLOOP_THREADS: '0' }), /CLAWLOOP_THREADS is '0'; expected a positive integer/);
  });
});
