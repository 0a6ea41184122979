import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadDawn } from '../../main/engine/gpu/dawn.js';
import type { GpuDevice } from '../../main/engine/gpu/gpuTypes.js';
import { GpuRecorder } from '../../scripts/bench/gpuProfile/gpuRecorder.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';

// profile:gpu times every dispatch with timestamp queries, which the software adapter lacks. Dawn's
// null backend (no shader runs, but every call is validated) has them: the recorder's WebGPU calls
// (a timed pass per dispatch, query sets filled past one set, resolves at 256-byte offsets, a reset
// while an encoder is open) must be valid there, so a GPU's few minutes do not find them broken.
describe('GpuRecorder on Dawn null backend', { skip: await gpuSkipReason() }, () => {
  it('times dispatches over several query sets and encoders without a validation error', async () => {
    const dawn = await loadDawn();
    // Kept in a variable to the end: a collected instance takes its devices down with it.
    const gpu = dawn.create(['backend=null']);
    const adapter = await gpu.requestAdapter({ featureLevel: 'compatibility' });
    assert.ok(adapter?.features.has('timestamp-query'), "Dawn's null backend offers timestamp-query");
    if (!adapter) return;
    const device = await adapter.requestDevice({ requiredFeatures: ['timestamp-query'] });
    const errors: string[] = [];
    device.addEventListener?.('uncapturederror', (e) => errors.push(e.error.message));
    const rec = new GpuRecorder(device);
    assert.equal(rec.timestamps, true);
    const p = device.createComputePipeline({
      layout: 'auto',
      compute: { module: device.createShaderModule({ code: '@compute @workgroup_size(1) fn main() {}' }), entryPoint: 'main' },
      label: 'empty',
    });
    const group = device.createBindGroup({ layout: p.getBindGroupLayout(0), entries: [] });
    const encode = (enc: ReturnType<GpuDevice['createCommandEncoder']>, n: number) => {
      const pass = enc.beginComputePass();
      pass.setPipeline(p);
      pass.setBindGroup(0, group);
      for (let i = 0; i < n; i++) pass.dispatchWorkgroups(1);
      pass.end();
    };
    device.pushErrorScope('validation');
    // 2,500 dispatches in 3 encoders: past one query set (2,048 dispatches), each encoder aligned.
    for (const n of [1000, 1, 1499]) {
      const enc = device.createCommandEncoder();
      encode(enc, n);
      device.queue.submit([enc.finish()]);
    }
    const records = await rec.collect();
    assert.equal(records.length, 2500);
    assert.deepEqual(
      { dispatches: rec.counts.dispatches, submits: rec.counts.submits },
      { dispatches: 2500, submits: 3 },
      'collect() does not count its own copies',
    );
    assert.ok(records.every((r) => r.pipeline === 'empty'));
    // A new phase while an encoder is open reuses queries from 0 in that encoder, whose own queries
    // started past the previous encoder's.
    rec.reset();
    const first = device.createCommandEncoder();
    encode(first, 40);
    device.queue.submit([first.finish()]);
    const open = device.createCommandEncoder();
    encode(open, 40);
    rec.reset();
    encode(open, 10);
    device.queue.submit([open.finish()]);
    assert.equal((await rec.collect()).length, 10);
    assert.equal(await device.popErrorScope(), null);
    assert.deepEqual(errors, []);
    device.destroy();
    assert.ok(gpu);
  });
});
