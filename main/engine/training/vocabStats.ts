import * as tf from '@tensorflow/tfjs-core';
import { FUSED, fusable, runFused } from '../ops/fusedKernels.js';
import { project, type WeightLayout } from '../model/layers/linear.js';

/**
 * What a loss needs from the model's distribution over the vocabulary, without the [N, V] logits
 * of a whole batch ever existing at once (151,936 floats a token for Qwen3: 0.6 GB for 1,024
 * tokens, twice over with its log-softmax and again for each gradient):
 * - per row, the log-sum-exp and the entropy, computed a chunk of rows at a time; the gradient
 *   recomputes each chunk's logits instead of keeping them;
 * - the logits of a few given tokens per row (targets, a teacher's top K), as dot products with
 *   the head's rows.
 * Then log p(v) = logit(v) − logsumexp.
 */

/** The output projection as the model holds it: [V, H] (outIn) or [H, V] (inOut). */
export interface HeadWeight {
  w: tf.Tensor;
  layout: WeightLayout;
}

/** Logits per chunk: about 2^24 (64 MB of float32) at a time, whatever the vocabulary. */
const CHUNK_LOGITS = 1 << 24;

/** Rows of `n` per chunk for a vocabulary of `vocab`. */
export function chunkRows(vocab: number, n: number): number {
  return Math.max(1, Math.min(n, Math.floor(CHUNK_LOGITS / vocab)));
}

/** [n, 2]: log-sum-exp and entropy of each row of softmax(z), from logits z [n, V]. */
function rowStats(z: tf.Tensor): tf.Tensor {
  const m = tf.max(z, -1, true);
  const zs = tf.sub(z, m); // ≤ 0: no overflow, and the entropy's two terms stay of order log V
  const e = tf.exp(zs);
  const s = tf.sum(e, -1, true);
  const logS = tf.log(s);
  const entropy = tf.sub(logS, tf.div(tf.sum(tf.mul(e, zs), -1, true), s)); // H = log Σe − Σ p·zs
  return tf.concat([tf.add(m, logS), entropy], 1);
}

/**
 * d(lse·a + H·b)/dz for one chunk: p ⊙ (a − b ⊙ (log p + H)), with p = softmax(z) recomputed from
 * the saved log-sum-exp; dH/dz = −p (log p + H).
 */
function chunkGrad(z: tf.Tensor, lse: tf.Tensor, entropy: tf.Tensor, dLse: tf.Tensor, dEntropy: tf.Tensor): tf.Tensor {
  const logp = tf.sub(z, lse);
  const p = tf.exp(logp);
  return tf.mul(p, tf.sub(dLse, tf.mul(dEntropy, tf.add(logp, entropy))));
}

/** Runs `f(r0, n)` over row chunks and concatenates the results along axis 0. */
function byChunks(rows: number, chunk: number, f: (r0: number, n: number) => tf.Tensor): tf.Tensor {
  const parts: tf.Tensor[] = [];
  for (let r0 = 0; r0 < rows; r0 += chunk) parts.push(f(r0, Math.min(chunk, rows - r0)));
  return parts.length === 1 ? parts[0] : tf.concat(parts, 0);
}

/**
 * [N, 2]: the log-sum-exp (column 0) and entropy (column 1) of softmax(h·Wᵀ) for each row of
 * h [N, H]. Differentiable in h, and in the head weight when `weightGrad` (full fine-tuning).
 */
export function vocabStats(h: tf.Tensor2D, head: HeadWeight, weightGrad: boolean): tf.Tensor2D {
  if (head.layout === 'outIn' && fusable(FUSED.vocabStats, h)) return fusedVocabStats(h, head.w, weightGrad);
  const [N, H] = h.shape;
  const V = (head.layout === 'outIn' ? head.w.shape[0] : head.w.shape[1]) as number;
  const chunk = chunkRows(V, N);
  const rowsOf = (x: tf.Tensor, r0: number, n: number) => tf.slice(x, [r0, 0], [n, x.shape[1]!]);
  const forward = (x: tf.Tensor, w: tf.Tensor) => byChunks(N, chunk, (r0, n) => tf.tidy(() => rowStats(project(rowsOf(x, r0, n), w, head.layout))));
  const backward = (dy: tf.Tensor, x: tf.Tensor, w: tf.Tensor, out: tf.Tensor) => {
    let dW: tf.Tensor | null = null;
    const dx = byChunks(N, chunk, (r0, n) =>
      tf.tidy(() => {
        const xc = rowsOf(x, r0, n);
        const [lse, ent] = tf.split(rowsOf(out, r0, n), 2, 1);
        const [dLse, dEnt] = tf.split(rowsOf(dy, r0, n), 2, 1);
        const dz = chunkGrad(project(xc, w, head.layout), lse, ent, dLse, dEnt); // [n, V]
        if (weightGrad) {
          const part = head.layout === 'outIn' ? tf.matMul(dz, xc, true, false) : tf.matMul(xc, dz, true, false);
          const next = dW ? tf.add(dW, part) : part;
          if (dW) (dW as tf.Tensor).dispose();
          dW = tf.keep(next);
        }
        return head.layout === 'outIn' ? tf.matMul(dz, w) : tf.matMul(dz, w, false, true); // [n, H]
      }),
    );
    // The kept running sum leaves the keep: the caller's scopes own the result.
    const result = dW ? tf.clone(dW as tf.Tensor) : null;
    (dW as tf.Tensor | null)?.dispose();
    return { dx: tf.reshape(dx, [N, H]), dW: result };
  };
  if (weightGrad) {
    const op = tf.customGrad(((x: tf.Tensor, w: tf.Tensor, save: tf.GradSaveFunc) => {
      const out = forward(x, w);
      save([x, w, out]);
      return { value: out, gradFunc: (dy: tf.Tensor, [sx, sw, so]: tf.Tensor[]) => { const g = backward(dy, sx, sw, so); return [g.dx, g.dW!]; } };
    }) as unknown as Parameters<typeof tf.customGrad>[0]);
    return op(h, head.w) as tf.Tensor2D;
  }
  const op = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const out = forward(x, head.w);
    save([x, out]);
    return { value: out, gradFunc: (dy: tf.Tensor, [sx, so]: tf.Tensor[]) => [backward(dy, sx, head.w, so).dx] };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(h) as tf.Tensor2D;
}

/**
 * {@link vocabStats} by the backend's fused kernel (the native backend has one: the head, 16-bit
 * or float32 [V, H], is widened one cache-sized panel of rows at a time and folded into an online
 * softmax; no [N, V] tensor is made), one pass over the vocabulary per direction.
 */
function fusedVocabStats(h: tf.Tensor2D, w: tf.Tensor, weightGrad: boolean): tf.Tensor2D {
  const grad = (x: tf.Tensor, stats: tf.Tensor, dy: tf.Tensor) => runFused<tf.Tensor[]>(FUSED.vocabStatsGrad, { h: x, w, stats, dy }, { weightGrad });
  if (weightGrad) {
    const op = tf.customGrad(((x: tf.Tensor, wv: tf.Tensor, save: tf.GradSaveFunc) => {
      const out = runFused<tf.Tensor>(FUSED.vocabStats, { h: x, w: wv });
      save([x, out]);
      return { value: out, gradFunc: (dy: tf.Tensor, [sx, so]: tf.Tensor[]) => grad(sx, so, dy) };
    }) as unknown as Parameters<typeof tf.customGrad>[0]);
    return op(h, w) as tf.Tensor2D;
  }
  const op = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const out = runFused<tf.Tensor>(FUSED.vocabStats, { h: x, w });
    save([x, out]);
    return { value: out, gradFunc: (dy: tf.Tensor, [sx, so]: tf.Tensor[]) => [grad(sx, so, dy)[0]] };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(h) as tf.Tensor2D;
}

/** The logits of given tokens per row: h [N, H], ids int32 [N, K] → [N, K], as dot products with the head's rows. */
export function logitsAt(h: tf.Tensor2D, head: HeadWeight, ids: tf.Tensor2D): tf.Tensor2D {
  const [N, H] = h.shape;
  const K = ids.shape[1];
  const rows = head.layout === 'outIn' ? head.w : tf.transpose(head.w); // [V, H]
  const picked = tf.reshape(tf.gather(rows, tf.reshape(ids, [N * K])), [N, K, H]);
  return tf.reshape(tf.matMul(tf.reshape(h, [N, 1, H]), picked, false, true), [N, K]) as tf.Tensor2D;
}
