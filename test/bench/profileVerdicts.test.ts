import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseModelConfig } from '../../main/engine/model/config.js';
import type { DispatchRecord } from '../../scripts/bench/gpuProfile/gpuRecorder.js';
import type { PhaseProfile } from '../../scripts/bench/gpuProfile/modelPhases.js';
import { kernelRows, verdicts } from '../../scripts/bench/gpuProfile/phaseReport.js';
import { PROFILE_SHAPES } from '../../scripts/bench/gpuProfile/profileShapes.js';

// profile:gpu's arithmetic on a real GPU, which CI never has: the 4-layer model's figures scaled to
// Qwen3-4B's 36 layers, and the kernel table's grouping and rates.

const record = (name: string, ms: number, head: boolean, flops = 0): DispatchRecord => ({
  tag: { name, flops, bytes: 0, head },
  pipeline: 'k',
  ns: ms * 1e6,
  share: 1,
});

function phase(tokens: number, wallMs: number, records: DispatchRecord[], inUsePeak = 0): PhaseProfile {
  const counts = { dispatches: records.length, submits: 1, writes: 0, writeBytes: 0, staging: 0, stagingBytes: 0, readbackBytes: 0 };
  return { name: 'p', tokens, steps: 1, wallMs, records, counts, inUsePeak, reservedPeak: inUsePeak };
}

describe('profile:gpu verdicts', () => {
  const config = parseModelConfig(PROFILE_SHAPES.full.model);

  it('scales the layers’ share of the time by 36/4 and keeps the head’s', () => {
    // GPU time: head 100 ms, layers 800 ms, of a 1,000 ms wall → 1000 · (100 + 9·800) / 900 ms.
    const prefill = phase(4096, 1000, [record('head', 100, true), record('layers', 800, false)]);
    const [v] = verdicts({ prefill }, config, 0, null);
    const want = 4096 / ((1000 * (100 + 9 * 800)) / 900 / 1000);
    assert.ok(Math.abs(v.estimate! - want) < 1e-6, `${v.estimate} vs ${want}`);
    assert.match(v.verdict, /^NOT MET \(estimate\)/);
  });

  it('says MET when the estimate clears the bar, and not measured for a software adapter', () => {
    const decode = phase(32, 100, [record('layers', 10, false)]); // 36 layers: 900 ms for 32 tokens
    const v = verdicts({ decode }, config, 0, null)[1];
    assert.ok(Math.abs(v.estimate! - 32 / 0.9) < 1e-6);
    assert.match(v.verdict, /^MET \(estimate\) 35\.6 = 1\.19×/);
    const soft = verdicts({ decode }, config, 0, 'software adapter');
    assert.equal(soft.length, 4);
    for (const s of soft) assert.equal(s.verdict, 'not measured: software adapter');
  });

  it('groups dispatches by op and pipeline, with TFLOP/s from the op’s flops', () => {
    const p = phase(1, 10, [record('mm', 2, false, 4e9), record('mm', 2, false, 4e9), record('add', 1, false)]);
    const rows = kernelRows(p, 4);
    assert.deepEqual(
      rows.map((r) => [r.kernel, r.calls, r.perLayer, r.ms]),
      [
        ['mm → k', 2, 0.5, 4],
        ['add → k', 1, 0.25, 1],
      ],
    );
    assert.ok(Math.abs(rows[0].tflops - 2) < 1e-9, `8e9 flops in 4 ms is 2 TFLOP/s, got ${rows[0].tflops}`);
    assert.ok(Math.abs(rows[0].percent - 80) < 1e-9);
  });
});
