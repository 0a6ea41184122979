import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { defaultBackendName, initBackend } from '../../main/engine/backends/backend.js';
import { KVCache } from '../../main/engine/model/kvCache.js';

/** A cache of B rows and S positions (2 layers, 1 head of 2 dims) whose entries name their row, slot and layer. */
function filled(B: number, S: number, tag: number): KVCache {
  const c = new KVCache(2);
  for (let l = 0; l < 2; l++) {
    const v = tf.tidy(() => tf.add(tf.reshape(tf.range(0, B * S * 2), [B, 1, S, 2]), tag + 1000 * l)) as tf.Tensor4D;
    const kT = tf.transpose(v, [0, 1, 3, 2]) as tf.Tensor4D;
    c.append(l, kT, v);
  }
  return c;
}

/** Layer l's values of a cache, as nested arrays [B][S][D] (head 0): what appending no positions gives back. */
async function values(c: KVCache, l: number): Promise<number[][][]> {
  const probe = tf.zeros([c.batch, 1, 2, 0]) as tf.Tensor4D;
  const v = tf.zeros([c.batch, 1, 0, 2]) as tf.Tensor4D;
  const { v: all } = c.append(l, probe, v);
  probe.dispose();
  v.dispose();
  return ((await all.array()) as number[][][][]).map((row) => row[0]);
}

describe('KV cache rows', () => {
  before(async () => initBackend(defaultBackendName()));

  it('a row prefix copies that row\'s first positions; stacking left-pads rows to the longest', async () => {
    const a = filled(3, 5, 0);
    const b = filled(2, 2, 100);
    const before = tf.memory().numTensors;
    const prefix = a.rowPrefix(1, 3);
    assert.equal(prefix.length, 3);
    assert.equal(prefix.batch, 1);
    const { cache, pad } = KVCache.stack([prefix, b, a]);
    assert.deepEqual(pad, [2, 3, 3, 0, 0, 0]);
    assert.equal(cache.length, 5);
    assert.equal(cache.batch, 6);
    const got = await values(cache, 1);
    const rowA1 = (await values(a, 1))[1];
    assert.deepEqual(got[0], [[0, 0], [0, 0], ...rowA1.slice(0, 3)]);
    assert.deepEqual(got[2].slice(3), (await values(b, 1))[1]);
    assert.deepEqual(got[3].slice(0), (await values(a, 1))[0]);
    // The keys are stacked the same way (transposed).
    const none = [tf.zeros([6, 1, 2, 0]) as tf.Tensor4D, tf.zeros([6, 1, 0, 2]) as tf.Tensor4D] as const;
    const keys = (await cache.append(0, ...none).kT.array()) as number[][][][];
    none.forEach((t) => t.dispose());
    assert.deepEqual(keys[1][0][0].slice(0, 3), [0, 0, 0]);
    assert.deepEqual(keys[1][0][0].slice(3), (await values(b, 0))[0].map((d) => d[0]));
    cache.dispose();
    prefix.dispose();
    assert.equal(tf.memory().numTensors, before, 'stacking leaves no tensors behind; the parts are untouched');
    assert.equal(a.length, 5);
    a.dispose();
    b.dispose();
  });

  it('refuses rows and lengths it does not have', () => {
    const a = filled(2, 3, 0);
    assert.throws(() => a.rowPrefix(2, 1), /row 2 of 2/);
    assert.throws(() => a.rowPrefix(0, 4), /4 positions of 3/);
    assert.throws(() => a.rowPrefix(0, 0), /0 positions of 3/);
    assert.throws(() => KVCache.stack([]), /at least one position/);
    assert.throws(() => KVCache.stack([a, new KVCache(2)]), /at least one position/);
    const threeLayers = new KVCache(3);
    for (let l = 0; l < 3; l++) threeLayers.append(l, tf.zeros([1, 1, 2, 1]) as tf.Tensor4D, tf.zeros([1, 1, 1, 2]) as tf.Tensor4D);
    assert.throws(() => KVCache.stack([a, threeLayers]), /different numbers of layers/);
    threeLayers.dispose();
    a.dispose();
  });
});
