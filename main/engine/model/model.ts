import fs from 'node:fs';
import path from 'node:path';
import { initBackend, type BackendName } from '../backends/backend.js';
import { CausalLM, type WeightStorage } from './causalLM.js';
import { ChatTemplate, type RenderOptions } from '../text/chatTemplate.js';
import { LiteralGuard } from '../text/literalText.js';
import { ModelConfigError, parseModelConfig, type ModelConfig } from './config.js';
import type { LoraAdapter } from './lora.js';
import { mergeLoraInto, type HfTensor } from './loraMerge.js';
import { WeightFiles } from '../formats/weightFiles.js';
import { TextTokenizer } from '../text/tokenizer.js';

/** Sampling defaults and stop tokens from `generation_config.json` (all optional there). */
export interface GenerationDefaults {
  /** Token ids that end generation: generation_config.json, config.json and the tokenizer's eos_token. */
  eosTokenIds: number[];
  temperature?: number;
  topP?: number;
  topK?: number;
}

export interface LoadModelOptions {
  /** tfjs backend; default `CLAWLOOP_BACKEND`, else `native` where the addon loads, else `wasm`. */
  backend?: BackendName;
  /** Receives one-line progress and warning messages. Default: none. */
  log?: (line: string) => void;
  /** How projection weights are stored on a GPU backend (see WeightStorage). Default: CLAWLOOP_GPU_WEIGHTS, else 'auto'. */
  weights?: WeightStorage;
  /**
   * Where the tokenizer (`tokenizer.json`, `tokenizer_config.json`, the chat template) comes from
   * when the folder has no `tokenizer.json` of its own: a judge trained from its policy shares the
   * policy's. Default: none (a folder without a tokenizer does not load).
   */
  tokenizerDir?: string;
}

export class ModelLoadError extends Error {
  override name = 'ModelLoadError';
}

function readJsonIfExists(file: string): Record<string, unknown> | null {
  if (!fs.existsSync(file)) return null;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ModelLoadError(`${file}: not valid JSON (${(err as Error).message})`);
  }
}

function ids(v: unknown): number[] {
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).filter((x): x is number => Number.isInteger(x));
}

/**
 * A model folder in Hugging Face layout, loaded: the network ({@link CausalLM}), its tokenizer,
 * its chat template and its generation defaults.
 */
export class Model {
  private constructor(
    /** Absolute path of the model folder. */
    readonly dir: string,
    readonly config: ModelConfig,
    readonly lm: CausalLM,
    readonly tokenizer: TextTokenizer,
    /** Null when the folder has no chat template (then only raw prompts work). */
    readonly chatTemplate: ChatTemplate | null,
    readonly generation: GenerationDefaults,
    /** The tfjs backend the model runs on (the one asked for, or the default that was chosen). */
    readonly backend: BackendName,
  ) {}

  /** The folder's name, a sensible default for the served model name. */
  get name(): string {
    return path.basename(this.dir);
  }

  /**
   * Loads `config.json`, the safetensors weights (single or sharded), `tokenizer.json`,
   * `tokenizer_config.json` (chat template) and `generation_config.json` from a folder (the
   * tokenizer from `opts.tokenizerDir` when the folder has none).
   */
  static async load(dir: string, opts: LoadModelOptions = {}): Promise<Model> {
    const abs = path.resolve(dir);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) {
      throw new ModelLoadError(
        `model folder '${dir}' does not exist (expected a folder with config.json, model.safetensors and tokenizer.json)`,
      );
    }
    const rawConfig = readJsonIfExists(path.join(abs, 'config.json'));
    if (!rawConfig) throw new ModelLoadError(`${path.join(abs, 'config.json')} is missing; is '${dir}' a Hugging Face model folder?`);
    const config = parseModelConfig(rawConfig);
    const tokDir = !fs.existsSync(path.join(abs, 'tokenizer.json')) && opts.tokenizerDir ? path.resolve(opts.tokenizerDir) : abs;
    const tokenizer = TextTokenizer.fromDir(tokDir);
    if (tokenizer.vocabSize > config.vocabSize) {
      throw new ModelConfigError(
        `tokenizer.json has ids up to ${tokenizer.vocabSize - 1} but config.json vocab_size is ${config.vocabSize}`,
      );
    }
    const special: Record<string, string | null> = {
      bos_token: tokenizer.bosToken ?? '',
      eos_token: tokenizer.eosToken ?? '',
      pad_token: tokenizer.padToken ?? '',
      unk_token: tokenizer.unkToken ?? '',
    };
    const chatTemplate = ChatTemplate.fromDir(tokDir, tokenizer.config, special);
    const genCfg = readJsonIfExists(path.join(abs, 'generation_config.json')) ?? {};
    const eos = new Set<number>([...ids(genCfg.eos_token_id), ...config.eosTokenIds]);
    const eosTok = tokenizer.eosToken ? tokenizer.tokenToId(tokenizer.eosToken) : undefined;
    if (eosTok !== undefined) eos.add(eosTok);
    const generation: GenerationDefaults = {
      eosTokenIds: [...eos],
      temperature: typeof genCfg.temperature === 'number' ? genCfg.temperature : undefined,
      topP: typeof genCfg.top_p === 'number' ? genCfg.top_p : undefined,
      topK: typeof genCfg.top_k === 'number' ? genCfg.top_k : undefined,
    };
    const backend = await initBackend(opts.backend, { log: opts.log });
    const files = WeightFiles.open(abs);
    try {
      const lm = CausalLM.fromWeightFiles(config, files, { log: opts.log, weights: opts.weights });
      const packed = [...lm.packedWeights().values()];
      if (packed.length) {
        const bytes = packed.reduce((n, p) => n + p.rows * Math.ceil(p.cols / 2) * 4, 0);
        opts.log?.(
          `clawloop: ${packed.length} projection weights kept ${packed[0].format} on the GPU (${(bytes / 2 ** 30).toFixed(2)} GiB)`,
        );
      }
      return new Model(abs, config, lm, tokenizer, chatTemplate, generation, backend);
    } finally {
      files.close();
    }
  }

  /** Renders a conversation with the chat template. Throws when the model has none. */
  renderChat(opts: RenderOptions): string {
    if (!this.chatTemplate) {
      throw new ModelLoadError(`${this.dir} has no chat template (tokenizer_config.json 'chat_template' or chat_template.jinja)`);
    }
    return this.chatTemplate.render(opts);
  }

  /**
   * Renders and tokenizes a conversation exactly as the model will see it. Special-token
   * look-alikes in the messages, tools and extra template variables stay plain text (see LiteralGuard); only the template's
   * markup becomes control tokens.
   */
  encodeChat(opts: RenderOptions): { text: string; ids: number[] } {
    this.literalGuard ??= new LiteralGuard(this.tokenizer);
    const literals: string[] = [];
    const { messages, tools, extra } = this.literalGuard.protect(opts.messages, opts.tools, literals, opts.extra);
    const rendered = this.renderChat({ ...opts, messages, tools, extra });
    return { text: this.literalGuard.restore(rendered, literals), ids: this.literalGuard.encode(rendered, literals) };
  }

  private literalGuard: LiteralGuard | null = null;

  /** Whether {@link withMergedAdapter} can fold an adapter in exactly: every weight held in float32. */
  get mergeable(): boolean {
    return this.lm.packedWeights().size === 0;
  }

  /**
   * This model with a LoRA adapter folded into its weights (W + scale·B·A, as the GGUF export
   * merges it): the same policy as this model with the adapter applied, at the cost per token of
   * the model alone. A new model sharing everything but the network (a copy of its weights: its
   * size again in memory while it lives); dispose it when done.
   */
  async withMergedAdapter(adapter: LoraAdapter): Promise<Model> {
    if (!this.mergeable) throw new Error('withMergedAdapter: this model holds 16-bit weights, which a merge would change');
    // exportTensors copies (about 20 ms for the bundled 5 M model), so the copy is merged in place.
    const merged = new Map<string, HfTensor>((await this.lm.exportTensors()).map((t) => [t.name, { shape: t.shape, data: t.data }]));
    await mergeLoraInto(merged, adapter);
    const lm = CausalLM.fromTensors(this.config, new Map([...merged].map(([name, t]) => [name, t.data])));
    return new Model(this.dir, this.config, lm, this.tokenizer, this.chatTemplate, this.generation, this.backend);
  }

  dispose(): void {
    this.lm.dispose();
  }
}
