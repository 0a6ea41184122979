import fs from 'node:fs';
import path from 'node:path';
import { readFloat32, readHeader, SafetensorsError, type TensorEntry } from './safetensors.js';

/**
 * The tensors of a model folder: `model.safetensors`, or the shards named by
 * `model.safetensors.index.json`, or a single given file. Tensors are read one at a time, so a
 * loader never holds more than the model plus one tensor in memory.
 */
export class WeightFiles {
  private readonly byName = new Map<string, TensorEntry>();
  private readonly fds = new Map<string, number>();

  private constructor(entries: TensorEntry[]) {
    for (const e of entries) {
      if (this.byName.has(e.name))
        throw new SafetensorsError(`tensor '${e.name}' appears in two files (${this.byName.get(e.name)!.file}, ${e.file})`);
      this.byName.set(e.name, e);
    }
  }

  /** Opens a folder (single or sharded) or a single .safetensors file. */
  static open(location: string): WeightFiles {
    if (!fs.existsSync(location)) throw new SafetensorsError(`${location} does not exist`);
    if (fs.statSync(location).isFile()) return new WeightFiles(readHeader(location).entries);
    const index = path.join(location, 'model.safetensors.index.json');
    const single = path.join(location, 'model.safetensors');
    if (fs.existsSync(index)) {
      let weightMap: Record<string, string>;
      try {
        weightMap = JSON.parse(fs.readFileSync(index, 'utf8')).weight_map;
      } catch (err) {
        throw new SafetensorsError(`${index}: not valid JSON (${(err as Error).message})`);
      }
      if (!weightMap || typeof weightMap !== 'object') throw new SafetensorsError(`${index}: has no 'weight_map' object`);
      const shards = [...new Set(Object.values(weightMap))];
      const entries: TensorEntry[] = [];
      for (const shard of shards) {
        const file = path.join(location, shard);
        if (!fs.existsSync(file)) throw new SafetensorsError(`${index} names shard '${shard}', which is missing`);
        for (const e of readHeader(file).entries) {
          if (weightMap[e.name] !== shard) {
            throw new SafetensorsError(`${file}: tensor '${e.name}' is not listed for this shard in ${path.basename(index)}`);
          }
          entries.push(e);
        }
      }
      const found = new Set(entries.map((e) => e.name));
      const missing = Object.keys(weightMap).filter((n) => !found.has(n));
      if (missing.length) throw new SafetensorsError(`${index} lists tensors no shard contains: ${missing.slice(0, 10).join(', ')}`);
      return new WeightFiles(entries);
    }
    if (fs.existsSync(single)) return new WeightFiles(readHeader(single).entries);
    throw new SafetensorsError(`${location} has neither model.safetensors nor model.safetensors.index.json`);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): TensorEntry | undefined {
    return this.byName.get(name);
  }

  /** Reads one tensor as float32. */
  read(name: string): Float32Array {
    const entry = this.byName.get(name);
    if (!entry) throw new SafetensorsError(`no tensor named '${name}'`);
    let fd = this.fds.get(entry.file);
    if (fd === undefined) this.fds.set(entry.file, (fd = fs.openSync(entry.file, 'r')));
    return readFloat32(entry, fd);
  }

  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
  }
}
