import { logitsSuite } from './logitsSuite.js';

logitsSuite('wasm');
