import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gpuSkipReason } from '../helpers/gpuSkip.js';
import { ROOT } from '../helpers/paths.js';

// `npm run profile:gpu -- --quick` on the adapter the GPU suites use (Mesa's software rasteriser in
// CI): the script must run end to end and its report must have every section, so that the rare
// minutes on a real GPU are not spent finding a broken profiler.
describe('profile:gpu --quick', { skip: await gpuSkipReason() }, () => {
  it('reports the adapter, the ceilings, three model phases and one verdict per bar', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-profile-gpu-'));
    const json = path.join(dir, 'profile.json');
    try {
      const script = path.join(ROOT, 'dist', 'scripts', 'bench', 'profileGpu.js');
      const { stdout } = await promisify(execFile)(process.execPath, [script, '--quick', '--json', json], {
        timeout: 300_000,
        maxBuffer: 1 << 24,
      });
      const r = JSON.parse(fs.readFileSync(json, 'utf8'));
      assert.equal(r.size, 'tiny');
      assert.match(r.adapter.name, /\S/);
      assert.ok(Array.isArray(r.adapter.configs) && typeof r.adapter.choice === 'string', 'the chooser said what it chose or why not');
      if (r.software) assert.match(stdout, /SOFTWARE ADAPTER/);

      assert.ok(r.raw.readBandwidth.bytes > 0 && r.raw.readBandwidth.wallGBs > 0);
      for (const k of ['rawUs', 'roundTripUs', 'engineUs', 'tfjsUs']) assert.ok(r.raw.dispatch[k] > 0, `dispatch cost ${k}`);
      const kernels = (figs: Array<{ kernels: string[]; ms: number }>) => figs.flatMap((f) => (f.ms > 0 ? f.kernels : []));
      assert.ok(
        kernels(r.gemm).some((k) => k.startsWith('matmul_tiled_nn_bf16')),
        'the BF16 GEMM ran',
      );
      assert.ok(
        kernels(r.gemm).some((k) => k.startsWith('matmul_tiled_tn')),
        'the weight-gradient GEMM ran',
      );
      assert.ok(kernels(r.gemv).includes('gemv_1_bf16') && kernels(r.gemv).includes('gemv_t_1_f32'), 'both GEMVs ran');
      assert.equal(r.attention.length, 2);

      const { prefill, decode, lora } = r.model.phases;
      for (const p of [prefill, decode, lora]) {
        assert.ok(p.counts.dispatches > 0 && p.counts.submits > 0 && p.wallMs > 0, `${p.name} counted`);
        assert.ok(p.inUsePeak > 0 && p.reservedPeak >= p.inUsePeak, `${p.name}: in-use ${p.inUsePeak} ≤ reserved ${p.reservedPeak}`);
        assert.equal(
          p.kernels.reduce((s: number, k: { calls: number }) => s + k.calls, 0),
          p.counts.dispatches,
          `${p.name}: every dispatch is in a kernel row`,
        );
      }
      assert.ok(decode.counts.readbackBytes >= 4 * 512 * decode.tokens, 'decoding reads the logits back every token');
      assert.ok(
        lora.kernels.some((k: { kernel: string }) => k.kernel.startsWith('ClawAdamW')),
        'the LoRA step ran AdamW',
      );
      assert.equal(r.verdicts.length, 4);
      for (const v of r.verdicts) assert.match(v.verdict, r.software ? /^not measured: software adapter/ : /^not measured: cut shapes/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
