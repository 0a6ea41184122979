import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chooseCoopConfig, coopPolicy } from '../../main/engine/backends/webgpu/kernels/coopConfig.js';
import type { GpuAdapterInfo, GpuDevice } from '../../main/engine/gpu/gpuTypes.js';

// Which cooperative-matrix configuration the GPU matmul would use, from what an adapter reports
// (the kernel itself is checked against the plain one when a GPU backend starts).

const device = (features: string[]) => ({ features: new Set(features), limits: { maxComputeInvocationsPerWorkgroup: 1024 } }) as unknown as GpuDevice;
const info = (configs: Array<[string, string, number, number, number]>, min = 32, max = 32) =>
  ({
    subgroupMinSize: min,
    subgroupMaxSize: max,
    subgroupMatrixConfigs: configs.map(([componentType, resultComponentType, M, N, K]) => ({ componentType, resultComponentType, M, N, K })),
  }) as unknown as GpuAdapterInfo;
const SM = 'chromium-experimental-subgroup-matrix';

describe('cooperative-matrix configuration', () => {
  it('prefers float32 components; half precision only when asked for and shader-f16 is on', () => {
    const nvidia = info([
      ['f16', 'f16', 16, 16, 16],
      ['f16', 'f32', 16, 16, 16],
    ]);
    assert.equal(chooseCoopConfig(device([SM, 'shader-f16']), nvidia, 'auto'), null, 'auto never lowers precision');
    assert.deepEqual(chooseCoopConfig(device([SM, 'shader-f16']), nvidia, 'f16'), { component: 'f16', M: 16, N: 16, K: 16, subgroupSize: 32 });
    assert.equal(chooseCoopConfig(device([SM]), nvidia, 'f16'), null, 'f16 components need shader-f16');
    const apple = info([
      ['f16', 'f32', 8, 8, 8],
      ['f32', 'f32', 8, 8, 8],
    ]);
    assert.deepEqual(chooseCoopConfig(device([SM, 'shader-f16']), apple, 'f16'), { component: 'f32', M: 8, N: 8, K: 8, subgroupSize: 32 });
  });

  it('needs the feature, a fixed subgroup size and tiles that divide 32; "plain" turns it off', () => {
    const ok = info([['f32', 'f32', 8, 8, 8]]);
    assert.equal(chooseCoopConfig(device([]), ok, 'auto'), null);
    assert.equal(chooseCoopConfig(device([SM]), info([['f32', 'f32', 8, 8, 8]], 16, 32), 'auto'), null);
    assert.equal(chooseCoopConfig(device([SM]), info([['f32', 'f32', 24, 8, 8]]), 'auto'), null);
    assert.equal(chooseCoopConfig(device([SM]), ok, 'plain'), null);
    assert.throws(() => coopPolicy({ CLAWLOOP_GPU_MATMUL: 'tf32' }), /valid: auto, f16, plain/);
  });
});
