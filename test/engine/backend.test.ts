import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { BackendUnavailableError, defaultBackendName, initBackend, parseBackendName } from '../../main/engine/backends/backend.js';
import { nativeWanted } from '../../main/engine/backends/nativeAddon.js';
import { probeGpuIsolated } from '../../main/engine/gpu/index.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';

describe('backends', () => {
  it('wasm is the default; CLAWLOOP_BACKEND chooses another; unknown names list the valid ones', () => {
    assert.equal(defaultBackendName({}), 'wasm');
    assert.equal(defaultBackendName({ CLAWLOOP_BACKEND: 'CPU' }), 'cpu');
    assert.throws(
      () => defaultBackendName({ CLAWLOOP_BACKEND: 'cuda' }),
      /CLAWLOOP_BACKEND is 'cuda'; valid backends: wasm, cpu, webgpu, tensorflow/,
    );
    assert.throws(() => parseBackendName('metal'), /--backend is 'metal'/);
  });

  it('logs the chosen backend and switches between wasm and cpu', async () => {
    const lines: string[] = [];
    assert.equal(await initBackend('cpu', { log: (l) => lines.push(l) }), 'cpu');
    assert.equal(tf.getBackend(), 'cpu');
    assert.equal(await initBackend('wasm', { log: (l) => lines.push(l) }), 'wasm');
    assert.equal(tf.getBackend(), 'wasm');
    assert.equal(lines[0], "clawloop: tfjs backend 'cpu'");
    if (nativeWanted() && !nativeSkipReason()) {
      assert.match(lines[1], /^clawloop: tfjs backend 'wasm' \(SIMD on\), native kernels \(\w+, \d+ threads\)$/);
      assert.equal(lines.length, 2);
    } else if (nativeWanted()) {
      // No addon: a warning that says how to build it, then the plain wasm backend.
      assert.match(lines[1], /^clawloop: warning: native kernels unavailable, using pure tfjs: .* is not built: .*npm run build:native$/);
      assert.equal(lines[2], "clawloop: tfjs backend 'wasm' (SIMD on)");
      assert.equal(lines.length, 3);
    } else {
      assert.match(lines[1], /^clawloop: tfjs backend 'wasm' \(SIMD on\)$/);
      assert.equal(lines.length, 2);
    }
  });

  it('optional backends that are not installed say what to install', async () => {
    await assert.rejects(initBackend('tensorflow'), (err: Error) => {
      assert.ok(err instanceof BackendUnavailableError);
      assert.match(err.message, /npm install @tensorflow\/tfjs-node/);
      return true;
    });
    // Without a GPU (or without the optional packages) the GPU backend says why; test/gpu covers it where one is found.
    if (!(await probeGpuIsolated()).usable) {
      await assert.rejects(initBackend('webgpu'), (err: Error) => {
        assert.ok(err instanceof BackendUnavailableError);
        assert.match(err.message, /npm install webgpu|no (GPU|software) adapter found/);
        return true;
      });
    }
    assert.equal(tf.getBackend(), 'wasm', 'a failed switch keeps the active backend');
  });
});
