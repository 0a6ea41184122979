/**
 * The engine's public interface for everything outside `main/engine/`: load a model, pick a
 * backend, generate and score, train a LoRA adapter, export to GGUF. Loading this module loads
 * tfjs; code that must not (the HTTP thread) imports `./text/index.js` and `./formats/index.js`,
 * or this module with `import type` only.
 */
export * from './text/index.js';
export * from './formats/index.js';

// Backends
export { parseBackendName, type BackendName } from './backends/backend.js';
export { cpuReport, type CpuReport } from './backends/cpuReport.js';
export { gpuMemory, releaseGpuPool, resetGpuPeak, type GpuMemory } from './backends/webgpu/gpuMemory.js';

// The model
export { Model } from './model/model.js';
export { parameterCount, type ModelConfig } from './model/config.js';
export { LoraAdapter, type LoraConfig } from './model/lora.js';

// Generation and scoring
export { generate, generateText } from './generation/generate.js';
export { DecodeBatcher } from './generation/decodeBatcher.js';
export { PrefixCache, type PrefixCacheStats } from './generation/prefixCache.js';
export { defaultPrefixCacheBytes, kvBytesPerToken, prefixCacheBytesFromEnv } from './generation/prefixCacheBudget.js';
export { greedyContinuations, type GreedyItem } from './generation/greedyBatch.js';
export { greedyAlongReferences, type AlongItem } from './generation/greedyAlong.js';
export {
  ChatRequestError,
  prepareChatPrompt,
  runChatGeneration,
  type ChatDelta,
  type ChatGenerationRequest,
  type ChatGenerationResult,
  type PreparedPrompt,
  type TokenReport,
} from './generation/chatGeneration.js';
export { greedyTokens, scoreResponses, tokenLogprobs } from './generation/score.js';

// Training
export { AdamW } from './training/optimizer.js';
export { policyGradientStep, type PolicyStepResult } from './training/policyStep.js';
export type { TrainBatch } from './training/train.js';

// File formats
export { ggufFromModel, vocabFromTokenizerJson, type GgufVocab } from './formats/ggufExport.js';
export { writeGguf } from './formats/ggufFile.js';
