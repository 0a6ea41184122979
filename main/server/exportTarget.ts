import fs from 'node:fs';
import path from 'node:path';
import { EXPORTS_DIR } from '../store/checkpointPaths.js';
import { ApiError } from './apiError.js';

/** The real path of `p`, or of its nearest existing ancestor joined with the rest (symlinks resolved). */
function realPathOf(p: string): string {
  const missing: string[] = [];
  let cur = p;
  while (!fs.existsSync(cur)) {
    missing.unshift(path.basename(cur));
    const up = path.dirname(cur);
    if (up === cur) break;
    cur = up;
  }
  return path.join(fs.realpathSync(cur), ...missing);
}

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

const refuse = (message: string, status = 400) => new ApiError(status, message, 'invalid_request_error', 'invalid_export_dir', 'dir');

/**
 * The folder an export may be written to. A relative name lands in `<data dir>/exports/`; an
 * absolute path must lie under a folder the user allowed (--export-dir). `..` and symlinks that
 * lead outside are refused; an existing non-empty folder is never overwritten.
 */
export function exportTarget(dataDir: string, allowed: readonly string[], dir: string | undefined, fallbackName: string): string {
  const root = path.join(dataDir, EXPORTS_DIR);
  fs.mkdirSync(root, { recursive: true });
  if (dir !== undefined && dir.split(/[\\/]/).includes('..'))
    throw refuse(`the export folder '${dir}' contains '..'; give a plain name or an absolute path`);
  const target = dir === undefined ? uniqueIn(root, fallbackName) : path.isAbsolute(dir) ? path.normalize(dir) : path.join(root, dir);
  const real = realPathOf(target);
  const roots = [root, ...allowed].map((r) => realPathOf(path.resolve(r)));
  if (!roots.some((r) => inside(real, r))) {
    throw refuse(
      `exports are written into ${root} (or a folder allowed with clawloop serve --export-dir); '${dir}' is outside${real !== target ? ` (it leads to ${real})` : ''}`,
    );
  }
  if (fs.existsSync(real) && (!fs.statSync(real).isDirectory() || fs.readdirSync(real).length > 0)) {
    throw refuse(`${real} already exists and is not an empty folder; choose another name`, 409);
  }
  return real;
}

/** `<root>/<name>`, or `<name>-2`, `-3`… when taken. */
function uniqueIn(root: string, name: string): string {
  let candidate = path.join(root, name);
  for (let i = 2; fs.existsSync(candidate); i++) candidate = path.join(root, `${name}-${i}`);
  return candidate;
}

/**
 * Writes an export into a temporary sibling of `target` and renames it into place, so a crash or
 * a kill mid-export never leaves a half-written folder under the name the user asked for.
 * `write` fills the folder it is given and returns the names of the files it wrote.
 */
export async function writeExport(target: string, write: (dir: string) => Promise<string[]> | string[]): Promise<string[]> {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}-${Date.now()}`);
  fs.mkdirSync(tmp, { recursive: true });
  try {
    const names = await write(tmp);
    fs.rmSync(target, { recursive: true, force: true }); // only ever an empty folder (exportTarget refuses others)
    fs.renameSync(tmp, target);
    return names.map((n) => path.join(target, n));
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** Copies a checkpoint's PEFT adapter (config with the base model named, and weights) into `dir`. */
export function copyPeftAdapter(checkpointFolder: string, dir: string, baseModel: string): string[] {
  const cfg = JSON.parse(fs.readFileSync(path.join(checkpointFolder, 'adapter_config.json'), 'utf8'));
  cfg.base_model_name_or_path = baseModel;
  fs.writeFileSync(path.join(dir, 'adapter_config.json'), JSON.stringify(cfg, null, 2) + '\n');
  fs.copyFileSync(path.join(checkpointFolder, 'adapter_model.safetensors'), path.join(dir, 'adapter_model.safetensors'));
  return ['adapter_config.json', 'adapter_model.safetensors'];
}

/** Removes exports a kill interrupted (their temporary folders); returns how many. */
export function cleanupExportTemp(dataDir: string): number {
  const root = path.join(dataDir, EXPORTS_DIR);
  if (!fs.existsSync(root)) return 0;
  const leftovers = fs.readdirSync(root).filter((n) => n.startsWith('.') && /\.tmp-\d+-\d+$/.test(n));
  for (const n of leftovers) fs.rmSync(path.join(root, n), { recursive: true, force: true });
  return leftovers.length;
}
