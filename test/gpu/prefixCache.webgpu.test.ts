import { gpuSkipReason } from '../helpers/gpuSkip.js';
import { prefixCacheSuite } from '../engine/prefixCacheSuite.js';

// The prefix cache on the GPU: a prompt continues from cached keys and values in GPU memory, and
// its prefill (many queries after a cached prefix) goes through the fused attention kernel.
// Sessions of two short turns: the software adapter CI uses is slow.
prefixCacheSuite('qwen3-qknorm', { backend: 'webgpu', skip: await gpuSkipReason(), size: { turns: 2, maxTokens: 4 } });
