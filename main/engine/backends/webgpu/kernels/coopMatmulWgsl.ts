import { MATMUL_UNIFORMS } from './matmulWgsl.js';

/*
 * C = op(A)·op(B) on cooperative matrices (Dawn's chromium_experimental_subgroup_matrix: tensor
 * cores on NVIDIA through Vulkan, simdgroup matrices on Apple). A workgroup of 4 subgroups takes a
 * 64×64 block of C; each subgroup a 32×32 quadrant, as a grid of the device's M×N result
 * matrices. K advances in slices of 32 staged in workgroup memory in the matrices' component type
 * (f32, or f16 when the device's configurations need it and f16 is allowed). Only whole blocks:
 * M and N multiples of 64, K a multiple of 32 (runMatmul takes the plain kernel otherwise).
 */

/** One of the adapter's subgroup-matrix configurations, as the kernel uses it. */
export interface CoopConfig {
  /** Component type of the left/right matrices: 'f32' or 'f16'. Results are f32. */
  component: 'f32' | 'f16';
  M: number;
  N: number;
  K: number;
  /** The subgroup size (the adapter's minimum and maximum, which must be equal). */
  subgroupSize: number;
}

export const COOP_TILE = 64;
export const COOP_K = 32;

/** Stages one 32-deep slice of op(A) ([64 m][32 k]) and op(B) ([32 k][64 n]) in the component type. */
function stage(ta: boolean, tb: boolean, ct: string, wg: number): string {
  const a = ta ? 'A[aBase + (k0 + c) * d.M + m0 + r]' : 'A[aBase + (m0 + r) * d.K + k0 + c]';
  const b = tb ? 'B[bBase + (n0 + c) * d.K + k0 + r]' : 'B[bBase + (k0 + r) * d.N + n0 + c]';
  return `
    for (var i = lid; i < 2048u; i += ${wg}u) { let r = i / 32u; let c = i % 32u; As[i] = ${ct}(${a}); }
    for (var i = lid; i < 2048u; i += ${wg}u) { let r = i / 64u; let c = i % 64u; Bs[i] = ${ct}(${b}); }`;
}

export function coopMatmulWgsl(cfg: CoopConfig, ta: boolean, tb: boolean): string {
  const ct = cfg.component;
  const wg = 4 * cfg.subgroupSize;
  const RM = 32 / cfg.M;
  const RN = 32 / cfg.N;
  const left = `subgroup_matrix_left<${ct}, ${cfg.K}, ${cfg.M}>`;
  const right = `subgroup_matrix_right<${ct}, ${cfg.N}, ${cfg.K}>`;
  const result = `subgroup_matrix_result<f32, ${cfg.N}, ${cfg.M}>`;
  return `
enable chromium_experimental_subgroup_matrix;
${ct === 'f16' ? 'enable f16;' : ''}
diagnostic(off, chromium_experimental.subgroup_matrix_uniformity);
${MATMUL_UNIFORMS}
@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> d: Dims;
var<workgroup> As: array<${ct}, 2048>;
var<workgroup> Bs: array<${ct}, 2048>;

@compute @workgroup_size(${wg}, 1, 1)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_id) sg: u32) {
  let batch = wid.z;
  let aBase = batch * d.strideA;
  let bBase = batch * d.strideB;
  let m0 = wid.y * 64u;
  let n0 = wid.x * 64u;
  let qm = (sg / 2u) * 32u;
  let qn = (sg % 2u) * 32u;
  var acc: array<${result}, ${RM * RN}>;
  for (var k0 = 0u; k0 < d.K; k0 += 32u) {
${stage(ta, tb, ct, wg)}
    workgroupBarrier();
    for (var kk = 0u; kk < 32u; kk += ${cfg.K}u) {
      for (var i = 0u; i < ${RM}u; i++) {
        let l = subgroupMatrixLoad<${left}>(&As, (qm + i * ${cfg.M}u) * 32u + kk, false, 32u);
        for (var j = 0u; j < ${RN}u; j++) {
          let r = subgroupMatrixLoad<${right}>(&Bs, kk * 64u + qn + j * ${cfg.N}u, false, 64u);
          acc[i * ${RN}u + j] = subgroupMatrixMultiplyAccumulate(l, r, acc[i * ${RN}u + j]);
        }
      }
    }
    workgroupBarrier();
  }
  let cBase = batch * d.M * d.N;
  for (var i = 0u; i < ${RM}u; i++) {
    for (var j = 0u; j < ${RN}u; j++) {
      subgroupMatrixStore(&C, cBase + (m0 + qm + i * ${cfg.M}u) * d.N + n0 + qn + j * ${cfg.N}u, acc[i * ${RN}u + j], false, d.N);
    }
  }
}
`;
}
