import { logitsSuite } from './logitsSuite.js';

// The pure-JS backend cross-checks the numerics independently of wasm/XNNPACK.
logitsSuite('cpu');
