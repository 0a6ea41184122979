import { loraTrainingSuite } from '../engine/loraTrainingSuite.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';

// LoRA loss, gradients and AdamW steps against PyTorch on the GPU backend, with the CPU suites' tolerances.
loraTrainingSuite('webgpu', { skip: await gpuSkipReason() });
