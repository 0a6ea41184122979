/**
 * `npm run bench:attention [-- --rounds N]`
 *
 * The attention of the bundled model's shapes (8 query heads over 4 KV heads of 32) on the native
 * backend, two ways: the tiled kernel (native/src/flashAttention*.cc, never the [T, S] scores) and
 * the composite (BLAS products around a fused masked softmax over the whole score matrix). For a
 * decoding step, short and long prefills, forward alone and forward with the backward. The ways
 * alternate round by round so that a busy machine slows them alike; medians of CPU milliseconds
 * (the figure that holds on a shared machine). Run it with CLAWLOOP_THREADS=1 to compare kernels.
 */
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../main/engine/backends/backend.js';
import { AttentionMask, groupedAttention, tiledAttention } from '../../main/engine/model/layers/attention.js';
import { scriptArgs } from '../scriptArgs.js';
import { cpuLine, cpuSummary } from './cpuReport.js';

const USAGE = `Usage: npm run bench:attention -- [--rounds N]

Tiled against composite attention at the bundled model's head shapes; --rounds alternating repetitions (default 5).`;

/** [queries T, slots S, with the backward]: decoding steps, prefills, training sequences. */
const SHAPES: Array<[number, number, boolean]> = [
  [1, 1024, false],
  [1, 5000, false],
  [16, 1024, false],
  [32, 1024, false],
  [64, 64, false],
  [256, 256, false],
  [1024, 1024, false],
  [1024, 5000, false],
  [2048, 2048, false],
  [256, 256, true],
  [1024, 1024, true],
  [2048, 2048, true],
];

const [H, KVH, D] = [8, 4, 32];

/** CPU milliseconds of one call of f. */
function cpuMs(f: () => void): number {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e3;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const { values } = scriptArgs(USAGE, { options: { rounds: { type: 'string', default: '5' } } });
  const rounds = Number(values.rounds);
  await initBackend('native', { log: () => {} });
  console.log(cpuLine(cpuSummary()));
  console.log('T | S | pass | tiled CPU ms | composite CPU ms | composite / tiled');
  for (const [T, S, backward] of SHAPES) {
    const [q, kT, v] = [tf.randomNormal([1, H, T, D]), tf.randomNormal([1, KVH, D, S]), tf.randomNormal([1, KVH, S, D])] as tf.Tensor4D[];
    const r = tf.randomNormal([1, T, H * D]);
    const mask = new AttentionMask(T, S, [S - T], [0], null, false);
    const ways = [tiledAttention, (a: tf.Tensor4D, b: tf.Tensor4D, c: tf.Tensor4D) => groupedAttention(a, b, c, mask.tensor())];
    const run = (f: (a: tf.Tensor4D, b: tf.Tensor4D, c: tf.Tensor4D, m: AttentionMask) => tf.Tensor3D) => () =>
      tf.tidy(() => {
        if (!backward) return void f(q, kT, v, mask).dataSync();
        const g = tf.grads((a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) =>
          tf.sum(tf.mul(f(a as tf.Tensor4D, b as tf.Tensor4D, c as tf.Tensor4D, mask), r)),
        );
        g([q, kT, v]).forEach((t) => t.dataSync());
      });
    ways.forEach((f) => run(f)()); // warm-up
    const times = ways.map(() => [] as number[]);
    for (let i = 0; i < rounds; i++) ways.forEach((f, w) => times[w].push(cpuMs(run(f))));
    const [tiled, composite] = times.map(median);
    console.log(
      `${T} | ${S} | ${backward ? 'fwd+bwd' : 'fwd'} | ${tiled.toFixed(2)} | ${composite.toFixed(2)} | ${(composite / tiled).toFixed(2)}`,
    );
    mask.dispose();
    tf.dispose([q, kT, v, r]);
  }
}

await main();
