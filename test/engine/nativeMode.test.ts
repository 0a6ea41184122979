import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultBackendName, initBackend } from '../../main/engine/backends/backend.js';
import { fastTransposedMatmul } from '../../main/engine/backends/capabilities.js';
import { loadNativeAddon, nativeLoadError, nativeWanted, threadCount } from '../../main/engine/backends/nativeAddon.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';

// What needs no addon: which kernels this process runs, and the thread-count setting's parsing.
// The native backend's kernels are tested in nativeBackend.test.ts and nativeFused.test.ts.
const NATIVE = nativeWanted();
const SKIP = nativeSkipReason();

/** What this process should run: the native backend, pure tfjs by request, or pure tfjs for want of the addon. */
const MODE = !NATIVE
  ? 'CLAWLOOP_NATIVE=0 runs pure tfjs'
  : SKIP
    ? 'without the addon the engine runs pure tfjs and says how to build it'
    : 'the addon is built: native is the default backend, and wasm stays pure tfjs';

describe('native addon: the mode of this process', () => {
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
      assert.equal(defaultBackendName({}), 'wasm');
      return;
    }
    assert.ok(loadNativeAddon(), `the native addon did not load: ${nativeLoadError()}. Build it with: npm run build:native`);
    assert.equal(defaultBackendName({}), 'native');
    assert.equal(fastTransposedMatmul(), false, "wasm runs tfjs's own kernels: transposed products stay slow there");
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
