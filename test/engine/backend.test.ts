import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { BackendUnavailableError, defaultBackendName, initBackend, parseBackendName } from '../../main/engine/backends/backend.js';
import { nativeWanted } from '../../main/engine/backends/nativeAddon.js';
import { probeGpuIsolated } from '../../main/engine/gpu/index.js';
import { nativeSkipReason } from '../helpers/nativeSkip.js';

describe('backends', () => {
  it('native is the default where the addon loads, else wasm; CLAWLOOP_BACKEND chooses another; unknown names list the valid ones', () => {
    assert.equal(defaultBackendName({}), nativeWanted() && !nativeSkipReason() ? 'native' : 'wasm');
    assert.equal(defaultBackendName({ CLAWLOOP_NATIVE: '0' }), 'wasm');
    assert.equal(defaultBackendName({ CLAWLOOP_BACKEND: 'CPU' }), 'cpu');
    assert.throws(
      () => defaultBackendName({ CLAWLOOP_BACKEND: 'cuda' }),
      /CLAWLOOP_BACKEND is 'cuda'; valid backends: native, wasm, cpu, webgpu, tensorflow/,
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
    assert.equal(lines.length, 2, 'one line per backend');
    if (nativeWanted() && !nativeSkipReason()) {
      // Chosen by name where the addon loads: pure tfjs, nothing else to say.
      assert.equal(lines[1], "clawloop: tfjs backend 'wasm' (SIMD on)");
    } else if (nativeWanted()) {
      // No addon: the line says why the native backend is not used and how to build it.
      assert.match(lines[1], /^clawloop: tfjs backend 'wasm' \(SIMD on\); the native backend is unavailable: .* is not built: .*npm run build:native$/);
    } else {
      assert.match(lines[1], /^clawloop: tfjs backend 'wasm' \(SIMD on\); the native backend is unavailable: disabled by CLAWLOOP_NATIVE$/);
    }
  });

  it('the native backend says where its tensors live and how it computes', { skip: nativeSkipReason() }, async () => {
    const lines: string[] = [];
    assert.equal(await initBackend('native', { log: (l) => lines.push(l) }), 'native');
    assert.match(lines[0], /^clawloop: tfjs backend 'native' \(tensors in native memory; \w+, \d+ threads, 16-bit weights: (packed|widen|sbgemm)\)$/);
    await initBackend('wasm');
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
