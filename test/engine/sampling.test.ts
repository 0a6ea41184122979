import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { logSoftmax, Sampler, SamplingError, topEntries } from '../../main/engine/generation/sampling.js';

// probabilities 0.4, 0.3, 0.15, 0.1, 0.05
const probs = [0.4, 0.3, 0.15, 0.1, 0.05];
const logits = Float32Array.from(probs, (p) => Math.log(p) + 2);

function supportOf(opts: ConstructorParameters<typeof Sampler>[0]): number[] {
  return [...new Sampler(opts, 1).support(logits).ids].sort((a, b) => a - b);
}

describe('sampling', () => {
  it('temperature 0 is greedy', () => {
    assert.deepEqual(supportOf({ temperature: 0 }), [0]);
    const s = new Sampler({ temperature: 0 });
    for (let i = 0; i < 20; i++) assert.equal(s.sample(logits), 0);
  });

  it('top_k keeps the k most likely tokens', () => {
    assert.deepEqual(supportOf({ topK: 2 }), [0, 1]);
    assert.deepEqual(supportOf({ topK: 4 }), [0, 1, 2, 3]);
    assert.deepEqual(supportOf({ topK: 0 }), [0, 1, 2, 3, 4]);
    assert.deepEqual(supportOf({ topK: 99 }), [0, 1, 2, 3, 4]);
  });

  it('top_p keeps the smallest most-likely set whose mass reaches p', () => {
    assert.deepEqual(supportOf({ topP: 0.39 }), [0]);
    assert.deepEqual(supportOf({ topP: 0.41 }), [0, 1]);
    assert.deepEqual(supportOf({ topP: 0.69 }), [0, 1]);
    assert.deepEqual(supportOf({ topP: 0.71 }), [0, 1, 2]);
    assert.deepEqual(supportOf({ topP: 1 }), [0, 1, 2, 3, 4]);
  });

  it('top_k then top_p: the nucleus is taken within the top k', () => {
    // top-2 renormalised: 0.571, 0.429 -> p=0.5 keeps only token 0
    assert.deepEqual(supportOf({ topK: 2, topP: 0.5 }), [0]);
    assert.deepEqual(supportOf({ topK: 3, topP: 0.9 }), [0, 1, 2]);
  });

  it('top_p on a large flat-tailed vocabulary is exact (threshold search)', () => {
    const V = 50_000;
    const l = new Float32Array(V).fill(0);
    l[10] = 8; // p ≈ e^8 / (e^8 + 49999) ≈ 0.0563
    const s = new Sampler({ topP: 0.5 }, 1).support(l);
    // token 10 plus half the mass in equally likely tail tokens (lowest ids first on ties)
    assert.equal(s.ids[0], 10);
    const total = 1 + (V - 1) * Math.exp(-8); // probabilities relative to the most likely token
    const mass = [...s.probs].reduce((a, b) => a + b, 0);
    assert.ok(mass / total >= 0.5 && (mass - Math.exp(-8)) / total < 0.5, `kept mass ${mass / total}`);
  });

  it('samples follow the distribution (seeded, 20k draws within 1.5 points)', () => {
    const s = new Sampler({}, 42);
    const counts = new Array(5).fill(0);
    const n = 20_000;
    for (let i = 0; i < n; i++) counts[s.sample(logits)]++;
    counts.forEach((c, i) => assert.ok(Math.abs(c / n - probs[i]) < 0.015, `token ${i}: ${c / n} vs ${probs[i]}`));
  });

  it('the same seed repeats the same draws', () => {
    const a = new Sampler({ temperature: 1.3 }, 9);
    const b = new Sampler({ temperature: 1.3 }, 9);
    for (let i = 0; i < 100; i++) assert.equal(a.sample(logits), b.sample(logits));
  });

  it('rejects invalid options with the valid range', () => {
    assert.throws(() => new Sampler({ topP: 0 }), SamplingError);
    assert.throws(() => new Sampler({ topP: 1.5 }), /0 < top_p <= 1/);
    assert.throws(() => new Sampler({ temperature: -1 }), /temperature/);
    assert.throws(() => new Sampler({ topK: 1.5 }), /top_k/);
  });

  it('logSoftmax and topEntries', () => {
    const lp = logSoftmax(logits);
    lp.forEach((v, i) => assert.ok(Math.abs(Math.exp(v) - probs[i]) < 1e-6));
    assert.deepEqual(
      topEntries(lp, 3).map((e) => e.id),
      [0, 1, 2],
    );
    assert.deepEqual(
      topEntries(Float32Array.of(1, 3, 3, 2), 2).map((e) => e.id),
      [1, 2],
    );
  });
});
