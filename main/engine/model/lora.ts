import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { PROJECTIONS, projectionDims, projectionModule, type ModelConfig, type Projection } from './config.js';
import { Rng } from '../../util/random.js';
import { readSafetensors } from '../formats/safetensors.js';
import { writeSafetensors } from '../formats/safetensorsWrite.js';
import { transpose2d, variableFrom } from './tensorUtil.js';
import { atomicWriteFile } from '../../util/atomicWrite.js';

/** LoRA hyper-parameters, named as in PEFT's `LoraConfig`. */
export interface LoraConfig {
  /** Rank of the low-rank update B·A. Default 8; any positive integer. */
  r: number;
  /** The update is scaled by alpha / r (alpha / √r with rsLoRA). Default 16. */
  alpha: number;
  /** Dropout on the adapter's input while training, in [0, 1). Default 0 (off). */
  dropout: number;
  /** Projections that get an adapter. Default: all of q, k, v, o, gate, up, down. */
  targets: Projection[];
  /** rsLoRA: scale by alpha / √r instead of alpha / r. Default false. */
  useRslora: boolean;
}

export const DEFAULT_LORA: LoraConfig = { r: 8, alpha: 16, dropout: 0, targets: [...PROJECTIONS], useRslora: false };

export class LoraError extends Error {
  override name = 'LoraError';
}

/** One adapted projection: y += (x·A)·B · scale, with A [in, r] and B [r, out] (PEFT stores the transposes). */
export interface LoraPair {
  a: tf.Variable;
  b: tf.Variable;
}

/** PEFT's tensor-name prefix for one projection of one layer. */
export function peftModuleName(layer: number, proj: Projection): string {
  return `base_model.model.model.layers.${layer}.${projectionModule(proj)}.${proj}`;
}

const PEFT_NAME = /^(?:base_model\.model\.)?model\.layers\.(\d+)\.(self_attn|mlp)\.(\w+)\.lora_([AB])(?:\.default)?\.weight$/;

export function validateLoraConfig(cfg: LoraConfig): LoraConfig {
  if (!Number.isInteger(cfg.r) || cfg.r <= 0) throw new LoraError(`LoRA r is ${cfg.r}; expected a positive integer`);
  if (!(cfg.alpha > 0)) throw new LoraError(`LoRA alpha is ${cfg.alpha}; expected a positive number`);
  if (!(cfg.dropout >= 0 && cfg.dropout < 1)) throw new LoraError(`LoRA dropout is ${cfg.dropout}; expected 0 <= dropout < 1`);
  if (!cfg.targets.length) throw new LoraError(`LoRA targets are empty; choose from ${PROJECTIONS.join(', ')}`);
  for (const t of cfg.targets) {
    if (!(PROJECTIONS as readonly string[]).includes(t))
      throw new LoraError(`LoRA target '${t}' is unknown; valid: ${PROJECTIONS.join(', ')}`);
  }
  return cfg;
}

/**
 * A set of LoRA adapters over a base model's projections. The base weights are never touched:
 * the model adds the adapter's update when one is passed to `forward`, so adapters can be swapped,
 * or switched off to get the frozen base, without reloading anything.
 */
export class LoraAdapter {
  readonly scale: number;
  private readonly pairs: Array<Map<Projection, LoraPair>>;
  private disposed = false;

  private constructor(
    readonly modelConfig: ModelConfig,
    readonly config: LoraConfig,
    pairs: Array<Map<Projection, LoraPair>>,
  ) {
    this.pairs = pairs;
    this.scale = config.alpha / (config.useRslora ? Math.sqrt(config.r) : config.r);
  }

  /**
   * PEFT's initialisation: A ~ U(−1/√in, 1/√in) (kaiming-uniform with a = √5), B = 0, so a new
   * adapter leaves the model's outputs unchanged.
   */
  static create(model: ModelConfig, partial: Partial<LoraConfig> = {}, seed = 0): LoraAdapter {
    const cfg = validateLoraConfig({ ...DEFAULT_LORA, ...partial, targets: [...(partial.targets ?? DEFAULT_LORA.targets)] });
    const rng = new Rng(seed);
    const dims = projectionDims(model);
    const tensors = new Map<string, Float32Array>();
    for (let l = 0; l < model.numLayers; l++) {
      for (const proj of cfg.targets) {
        const [out, inp] = dims[proj];
        const bound = 1 / Math.sqrt(inp);
        const a = new Float32Array(cfg.r * inp);
        for (let i = 0; i < a.length; i++) a[i] = (2 * rng.uniform() - 1) * bound;
        tensors.set(`${peftModuleName(l, proj)}.lora_A.weight`, a);
        tensors.set(`${peftModuleName(l, proj)}.lora_B.weight`, new Float32Array(out * cfg.r));
      }
    }
    return LoraAdapter.fromTensors(model, cfg, tensors);
  }

  /**
   * Builds an adapter from PEFT-layout tensors (A: [r, in], B: [out, r]) keyed by PEFT names. Which
   * projections are adapted is read from the names; shapes are checked against the model.
   */
  static fromTensors(model: ModelConfig, cfg: LoraConfig, tensors: Map<string, Float32Array>): LoraAdapter {
    const dims = projectionDims(model);
    const found: Array<Map<Projection, { a?: Float32Array; b?: Float32Array }>> = Array.from({ length: model.numLayers }, () => new Map());
    for (const [name, data] of tensors) {
      const m = PEFT_NAME.exec(name);
      if (!m) throw new LoraError(`adapter tensor '${name}' is not a LoRA A/B weight of a decoder layer projection`);
      const layer = Number(m[1]);
      const proj = m[3] as Projection;
      if (layer >= model.numLayers) throw new LoraError(`adapter tensor '${name}' names layer ${layer}; the model has ${model.numLayers}`);
      if (!(PROJECTIONS as readonly string[]).includes(proj) || projectionModule(proj) !== m[2]) {
        throw new LoraError(`adapter tensor '${name}' targets '${m[2]}.${proj}', which the model does not have`);
      }
      const [out, inp] = dims[proj];
      const expected = m[4] === 'A' ? cfg.r * inp : out * cfg.r;
      if (data.length !== expected) {
        const want = m[4] === 'A' ? [cfg.r, inp] : [out, cfg.r];
        throw new LoraError(`adapter tensor '${name}' has ${data.length} values; expected shape ${JSON.stringify(want)} (r=${cfg.r})`);
      }
      const slot = found[layer].get(proj) ?? {};
      slot[m[4] === 'A' ? 'a' : 'b'] = data;
      found[layer].set(proj, slot);
    }
    const pairs: Array<Map<Projection, LoraPair>> = [];
    const targets = new Set<Projection>();
    for (let l = 0; l < model.numLayers; l++) {
      const layerPairs = new Map<Projection, LoraPair>();
      // Canonical order (PROJECTIONS), whatever order the file had: iteration order reaches
      // reductions such as the global gradient norm, which must not depend on where a tensor came from.
      for (const proj of PROJECTIONS) {
        const slot = found[l].get(proj);
        if (!slot) continue;
        if (!slot.a || !slot.b) {
          pairs.forEach((lp) => lp.forEach((p) => (p.a.dispose(), p.b.dispose())));
          layerPairs.forEach((p) => (p.a.dispose(), p.b.dispose()));
          throw new LoraError(`adapter for layer ${l} ${proj} has lora_${slot.a ? 'B' : 'A'} missing`);
        }
        const [out, inp] = dims[proj];
        layerPairs.set(proj, {
          a: variableFrom(transpose2d(slot.a, cfg.r, inp), [inp, cfg.r], true),
          b: variableFrom(transpose2d(slot.b, out, cfg.r), [cfg.r, out], true),
        });
        targets.add(proj);
      }
      pairs.push(layerPairs);
    }
    if (targets.size === 0) throw new LoraError('the adapter has no LoRA tensors');
    return new LoraAdapter(model, { ...cfg, targets: PROJECTIONS.filter((p) => targets.has(p)) }, pairs);
  }

  /** Loads a PEFT adapter folder (`adapter_config.json` + `adapter_model.safetensors`). */
  static load(dir: string, model: ModelConfig): LoraAdapter {
    const cfgFile = path.join(dir, 'adapter_config.json');
    const weightsFile = path.join(dir, 'adapter_model.safetensors');
    if (!fs.existsSync(cfgFile)) throw new LoraError(`${dir} has no adapter_config.json; is it a PEFT LoRA adapter folder?`);
    if (!fs.existsSync(weightsFile)) {
      const hint = fs.existsSync(path.join(dir, 'adapter_model.bin'))
        ? ' (adapter_model.bin is a pickle; re-save it with safe_serialization=True)'
        : '';
      throw new LoraError(`${dir} has no adapter_model.safetensors${hint}`);
    }
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(fs.readFileSync(cfgFile, 'utf8'));
    } catch (err) {
      throw new LoraError(`${cfgFile}: not valid JSON (${(err as Error).message})`);
    }
    if (raw.peft_type !== undefined && raw.peft_type !== 'LORA')
      throw new LoraError(`${cfgFile}: peft_type is '${raw.peft_type}'; only LORA adapters are supported`);
    if (raw.use_dora) throw new LoraError(`${cfgFile}: DoRA adapters (use_dora) are not supported`);
    if (raw.bias && raw.bias !== 'none') throw new LoraError(`${cfgFile}: bias='${raw.bias}' is not supported; only bias='none'`);
    for (const key of ['rank_pattern', 'alpha_pattern'] as const) {
      if (raw[key] && Object.keys(raw[key] as object).length) throw new LoraError(`${cfgFile}: a non-empty ${key} is not supported`);
    }
    if (Array.isArray(raw.modules_to_save) && raw.modules_to_save.length) {
      throw new LoraError(`${cfgFile}: modules_to_save (${raw.modules_to_save.join(', ')}) is not supported`);
    }
    const r = Number(raw.r);
    const cfg = validateLoraConfig({
      r,
      alpha: Number(raw.lora_alpha ?? r),
      dropout: Number(raw.lora_dropout ?? 0),
      targets: [...PROJECTIONS],
      useRslora: raw.use_rslora === true,
    });
    const { tensors } = readSafetensors(weightsFile);
    const data = new Map<string, Float32Array>();
    for (const [name, t] of tensors) data.set(name, t.data);
    return LoraAdapter.fromTensors(model, cfg, data);
  }

  /** The adapted pair of one projection, if any. */
  get(layer: number, proj: Projection): LoraPair | undefined {
    this.assertLive();
    return this.pairs[layer]?.get(proj);
  }

  /** Trainable variables keyed by PEFT tensor name (A and B). */
  variables(): Map<string, tf.Variable> {
    this.assertLive();
    const out = new Map<string, tf.Variable>();
    this.pairs.forEach((layer, l) => {
      for (const [proj, p] of layer) {
        out.set(`${peftModuleName(l, proj)}.lora_A.weight`, p.a);
        out.set(`${peftModuleName(l, proj)}.lora_B.weight`, p.b);
      }
    });
    return out;
  }

  /** Layer `l`'s A and B matrices, by PEFT tensor name. */
  layerVariables(l: number): Map<string, tf.Variable> {
    this.assertLive();
    const out = new Map<string, tf.Variable>();
    for (const [proj, p] of this.pairs[l] ?? []) {
      out.set(`${peftModuleName(l, proj)}.lora_A.weight`, p.a);
      out.set(`${peftModuleName(l, proj)}.lora_B.weight`, p.b);
    }
    return out;
  }

  /** Tensors in PEFT layout (A [r, in], B [out, r]) keyed by PEFT name: to save or send to another thread. */
  async toTensors(): Promise<Map<string, { shape: [number, number]; data: Float32Array }>> {
    const vars = [...this.variables()];
    const values = await Promise.all(vars.map(([, v]) => v.data()));
    const out = new Map<string, { shape: [number, number]; data: Float32Array }>();
    vars.forEach(([name, v], i) => {
      const [rows, cols] = v.shape as [number, number];
      out.set(name, { shape: [cols, rows], data: transpose2d(values[i] as Float32Array, rows, cols) });
    });
    return out;
  }

  /**
   * Writes a PEFT adapter folder that transformers/PEFT and vLLM load: `adapter_config.json` and
   * `adapter_model.safetensors`. Each file is written atomically.
   */
  async save(dir: string, opts: { baseModel?: string } = {}): Promise<void> {
    const read = await this.toTensors();
    fs.mkdirSync(dir, { recursive: true });
    const tensors = [...read].map(([name, t]) => ({ name, shape: t.shape, data: t.data }));
    writeSafetensors(path.join(dir, 'adapter_model.safetensors'), tensors, { format: 'pt' });
    const config = {
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      base_model_name_or_path: opts.baseModel ?? null,
      r: this.config.r,
      lora_alpha: this.config.alpha,
      lora_dropout: this.config.dropout,
      target_modules: [...this.config.targets],
      use_rslora: this.config.useRslora,
      bias: 'none',
      fan_in_fan_out: false,
      inference_mode: true,
      init_lora_weights: true,
      modules_to_save: null,
      layers_to_transform: null,
      rank_pattern: {},
      alpha_pattern: {},
      use_dora: false,
      revision: null,
    };
    atomicWriteFile(path.join(dir, 'adapter_config.json'), JSON.stringify(config, null, 2) + '\n');
  }

  dispose(): void {
    if (this.disposed) return;
    for (const layer of this.pairs) for (const p of layer.values()) (p.a.dispose(), p.b.dispose());
    this.disposed = true;
  }

  private assertLive(): void {
    if (this.disposed) throw new LoraError('this LoRA adapter has been disposed');
  }
}
