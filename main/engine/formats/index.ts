/**
 * Model folders for code outside `main/engine/`: whether a folder holds a model ClawLoop can serve,
 * read from its JSON files and safetensors headers only. Nothing here loads tfjs, so the HTTP
 * thread imports it freely.
 */
export { inspectModelFolder, ModelFolderError, type ModelFolderSummary } from './modelFolder.js';
