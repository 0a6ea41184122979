import { Rng } from '../../util/random.js';

/** How the next token is chosen from the model's logits. */
export interface SamplingOptions {
  /** Softmax temperature; 0 picks the most likely token (greedy). Default 1. Range [0, 100]. */
  temperature?: number;
  /** Nucleus sampling: keep the smallest set of most likely tokens whose probability reaches topP. 1 = off (default). Range (0, 1]. */
  topP?: number;
  /** Keep only the topK most likely tokens. 0 = off (default). */
  topK?: number;
}

export class SamplingError extends Error {
  override name = 'SamplingError';
}

export function validateSampling(o: SamplingOptions): Required<SamplingOptions> {
  const temperature = o.temperature ?? 1;
  const topP = o.topP ?? 1;
  const topK = o.topK ?? 0;
  if (!(temperature >= 0 && temperature <= 100))
    throw new SamplingError(`temperature is ${temperature}; expected 0 <= temperature <= 100 (0 = greedy)`);
  if (!(topP > 0 && topP <= 1)) throw new SamplingError(`top_p is ${topP}; expected 0 < top_p <= 1`);
  if (!(Number.isInteger(topK) && topK >= 0)) throw new SamplingError(`top_k is ${topK}; expected an integer >= 0 (0 = off)`);
  return { temperature, topP, topK };
}

/** log softmax of a logits vector, in float64 for the normaliser. */
export function logSoftmax(logits: Float32Array): Float32Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  const lse = max + Math.log(sum);
  const out = new Float32Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = logits[i] - lse;
  return out;
}

/** The k largest entries, largest first (ties: lower id first). */
export function topEntries(values: Float32Array, k: number): Array<{ id: number; value: number }> {
  const n = Math.min(k, values.length);
  if (n <= 0) return [];
  // A small sorted buffer beats sorting the whole vocabulary for the k <= 20 used here.
  const ids: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (ids.length === n && !(v > values[ids[n - 1]])) continue;
    let pos = ids.length < n ? ids.length : n - 1;
    if (ids.length < n) ids.push(i);
    while (pos > 0 && v > values[ids[pos - 1]]) {
      ids[pos] = ids[pos - 1];
      pos--;
    }
    ids[pos] = i;
  }
  return ids.map((id) => ({ id, value: values[id] }));
}

/** The value of the k-th largest entry (1-based), by quickselect on a copy. */
function kthLargest(values: Float32Array, k: number): number {
  const a = Float32Array.from(values);
  let lo = 0;
  let hi = a.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return a[target];
  }
  return a[target];
}

/** The most likely token and its logit: greedy decoding's pick (the first of equal maxima). */
export function argmax(logits: Float32Array): { index: number; max: number } {
  let max = -Infinity;
  let index = 0;
  for (let i = 0; i < logits.length; i++) {
    if (logits[i] > max) {
      max = logits[i];
      index = i;
    }
  }
  return { index, max };
}

/**
 * Chooses tokens from logits: temperature, then top-k, then top-p (the order transformers uses),
 * then a draw from the renormalised distribution with a seeded generator.
 */
export class Sampler {
  private readonly opts: Required<SamplingOptions>;
  private readonly rng: Rng;

  constructor(opts: SamplingOptions = {}, seed?: number) {
    this.opts = validateSampling(opts);
    this.rng = new Rng(seed);
  }

  /** The candidate token ids with their (unnormalised) probabilities, before the draw. */
  support(logits: Float32Array): { ids: Uint32Array; probs: Float64Array } {
    const { temperature, topK, topP } = this.opts;
    const V = logits.length;
    const { index: top, max } = argmax(logits);
    if (temperature === 0) return { ids: Uint32Array.of(top), probs: Float64Array.of(1) };
    const p = new Float64Array(V);
    for (let i = 0; i < V; i++) p[i] = Math.exp((logits[i] - max) / temperature);
    let floor = 0;
    if (topK > 0 && topK < V) {
      floor = Math.exp((kthLargest(logits, topK) - max) / temperature);
    }
    let total = 0;
    for (let i = 0; i < V; i++) if (p[i] >= floor) total += p[i];
    if (topP >= 1) return collect(p, floor);

    // Exact nucleus without sorting the whole vocabulary: candidates above a threshold t are
    // sorted; if their mass already reaches topP of the total, the nucleus lies among them
    // (every other token is less likely than each candidate). Otherwise lower t and retry.
    let t = Math.max(floor, 1e-2);
    for (;;) {
      const cand: number[] = [];
      let mass = 0;
      for (let i = 0; i < V; i++) {
        if (p[i] >= t && p[i] >= floor) {
          cand.push(i);
          mass += p[i];
        }
      }
      if (mass >= topP * total || t <= floor || t < 1e-30) {
        cand.sort((a, b) => p[b] - p[a] || a - b);
        const ids: number[] = [];
        let acc = 0;
        for (const i of cand) {
          ids.push(i);
          acc += p[i];
          if (acc >= topP * total) break;
        }
        return { ids: Uint32Array.from(ids), probs: Float64Array.from(ids, (i) => p[i]) };
      }
      t = Math.max(t / 100, floor);
    }
  }

  /** Draws one token id. */
  sample(logits: Float32Array): number {
    const { ids, probs } = this.support(logits);
    if (ids.length === 1) return ids[0];
    let total = 0;
    for (let i = 0; i < probs.length; i++) total += probs[i];
    let r = this.rng.uniform() * total;
    for (let i = 0; i < ids.length; i++) {
      r -= probs[i];
      if (r < 0) return ids[i];
    }
    return ids[ids.length - 1];
  }
}

function collect(p: Float64Array, floor: number): { ids: Uint32Array; probs: Float64Array } {
  let n = 0;
  for (let i = 0; i < p.length; i++) if (p[i] >= floor && p[i] > 0) n++;
  const ids = new Uint32Array(n);
  const probs = new Float64Array(n);
  let j = 0;
  for (let i = 0; i < p.length; i++) {
    if (p[i] >= floor && p[i] > 0) {
      ids[j] = i;
      probs[j++] = p[i];
    }
  }
  return { ids, probs };
}
