import * as tf from '@tensorflow/tfjs-core';
import { projectionModule } from './config.js';
import { peftModuleName, type LoraAdapter } from './lora.js';

/** A weight in Hugging Face layout ([out, in] for a projection). */
export interface HfTensor {
  shape: number[];
  data: Float32Array;
}

/**
 * Folds a LoRA adapter into the base weights: W ← W + scale · B·A for every adapted projection, so
 * the merged model computes exactly what base + adapter computes (e.g. for a GGUF export that
 * llama.cpp runs without LoRA support). `hf` holds the base weights by Hugging Face name and is
 * changed in place.
 */
export async function mergeLoraInto(hf: Map<string, HfTensor>, adapter: LoraAdapter): Promise<void> {
  const peft = await adapter.toTensors();
  for (let l = 0; l < adapter.modelConfig.numLayers; l++) {
    for (const proj of adapter.config.targets) {
      const prefix = peftModuleName(l, proj);
      const a = peft.get(`${prefix}.lora_A.weight`); // [r, in]
      const b = peft.get(`${prefix}.lora_B.weight`); // [out, r]
      const name = `model.layers.${l}.${projectionModule(proj)}.${proj}.weight`;
      const w = hf.get(name);
      if (!a || !b || !w)
        throw new Error(`cannot merge the adapter: ${!w ? `the model has no '${name}'` : `the adapter has no ${prefix}`}`);
      const product = tf.tidy(() => tf.mul(tf.matMul(tf.tensor2d(b.data, b.shape), tf.tensor2d(a.data, a.shape)), adapter.scale));
      const delta = await product.data();
      product.dispose();
      for (let i = 0; i < w.data.length; i++) w.data[i] += delta[i];
    }
  }
}
