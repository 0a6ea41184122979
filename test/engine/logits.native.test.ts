import { nativeSkipReason } from '../helpers/nativeSkip.js';
import { logitsSuite } from './logitsSuite.js';

// The native backend (tensors in native memory, kernels in the addon), where the addon is built.
logitsSuite('native', { skip: nativeSkipReason() });
