import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nativeSkipReason } from '../helpers/nativeSkip.js';

// CLAWLOOP_FUSED is read once per process, so each setting is tried in a process of its own.
const fusedKernels = fileURLToPath(new URL('../../main/engine/ops/fusedKernels.js', import.meta.url));
const backend = fileURLToPath(new URL('../../main/engine/backends/backend.js', import.meta.url));

/** Which fused kernels the native backend runs for float32 inputs, in a process with `env`. */
function fusedOnNative(env: NodeJS.ProcessEnv): string[] {
  const script = `
    import * as tf from '@tensorflow/tfjs-core';
    const { FUSED, fusable } = await import(${JSON.stringify(fusedKernels)});
    const { initBackend } = await import(${JSON.stringify(backend)});
    await initBackend('native');
    const x = tf.ones([2, 4]);
    console.log(JSON.stringify(Object.values(FUSED).filter((k) => fusable(k, x))));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as string[];
}

describe('CLAWLOOP_FUSED', { skip: nativeSkipReason() }, () => {
  it('the native backend runs its fused kernels by default', () => {
    const on = fusedOnNative({ CLAWLOOP_FUSED: '' });
    for (const k of ['ClawRmsNorm', 'ClawRope', 'ClawSwiGlu', 'ClawMaskedSoftmax', 'ClawVocabStats']) assert.ok(on.includes(k), `${k} in ${on}`);
  });

  it('CLAWLOOP_FUSED=0 turns every fused kernel off (the composite tfjs ops run)', () => {
    assert.deepEqual(fusedOnNative({ CLAWLOOP_FUSED: '0' }), []);
  });
});
