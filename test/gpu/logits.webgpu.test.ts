import { logitsSuite } from '../engine/logitsSuite.js';
import { gpuSkipReason } from '../helpers/gpuSkip.js';

// The fixture models against PyTorch (FP32) on the GPU backend, with the tolerances of the CPU suites.
logitsSuite('webgpu', { skip: await gpuSkipReason() });
