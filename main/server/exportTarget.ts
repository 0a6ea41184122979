import fs from 'node:fs';
import path from 'node:path';
import { EXPORTS_DIR } from '../store/checkpointPaths.js';
import { UNSAFE_TEXT } from '../protocol/sessions.js';
import { ApiError } from './apiError.js';
import { EXPORT_TEMP_PREFIX } from './exportTemp.js';

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
export function exportTarget(
  dataDir: string,
  allowed: readonly string[],
  dir: string | undefined,
  fallbackName: string,
  busy: (target: string) => boolean = () => false,
): string {
  const root = path.join(dataDir, EXPORTS_DIR);
  fs.mkdirSync(root, { recursive: true });
  if (dir !== undefined) checkName(dir);
  const target = dir === undefined ? uniqueIn(root, fallbackName, busy) : path.isAbsolute(dir) ? path.normalize(dir) : path.join(root, dir);
  if (Buffer.byteLength(target) > MAX_PATH_BYTES)
    throw refuse(`the export folder's path would be ${Buffer.byteLength(target)} bytes long; at most ${MAX_PATH_BYTES} bytes`);
  const real = realPathOf(target);
  const roots = [root, ...allowed].map((r) => realPathOf(path.resolve(r)));
  if (!roots.some((r) => inside(real, r))) {
    throw refuse(
      `exports are written into ${root} (or a folder allowed with clawloop serve --export-dir); '${dir}' is outside${real !== target ? ` (it leads to ${real})` : ''}`,
    );
  }
  if (roots.includes(real)) throw refuse(`'${dir}' is the exports folder itself; name a folder inside it`);
  if (fs.existsSync(real) && (!fs.statSync(real).isDirectory() || fs.readdirSync(real).length > 0)) {
    throw refuse(`${real} already exists and is not an empty folder; choose another name`, 409);
  }
  return real;
}

/**
 * `<root>/<name>`, or `<name>-copy-2`, `-copy-3`… when taken (on disk, or by an export under way):
 * an earlier export is never overwritten, and `v2-2` would read as another version.
 */
function uniqueIn(root: string, name: string, busy: (target: string) => boolean): string {
  let candidate = path.join(root, name);
  for (let i = 2; fs.existsSync(candidate) || busy(candidate); i++) candidate = path.join(root, `${name}-copy-${i}`);
  return candidate;
}

/** The longest file or folder name Linux and macOS accept, in bytes (NAME_MAX). */
const MAX_NAME_BYTES = 255;
/**
 * The longest export folder path, in bytes: Linux's PATH_MAX less its NUL, less room for the files
 * written inside it (`adapter_model.safetensors`) and the temporary's longer name.
 */
const MAX_PATH_BYTES = 4095 - 64;

/** Refuses a folder name the file system would reject, that climbs out (`..`), or that looks like a temporary. */
function checkName(dir: string): void {
  const shown = dir.length > 80 ? `${dir.slice(0, 80)}…` : dir;
  // Bidi and invisible characters too, as in session ids: "a\u202eb" would show reversed in a file manager.
  if (UNSAFE_TEXT.test(dir))
    throw refuse(
      `the export folder ${JSON.stringify(shown)} contains a control character (NUL, newline…) or an invisible bidi/formatting character; give a plain name`,
    );
  const parts = dir.split(/[\\/]/);
  if (parts.includes('..')) throw refuse(`the export folder '${shown}' contains '..'; give a plain name or an absolute path`);
  const long = parts.find((p) => Buffer.byteLength(p) > MAX_NAME_BYTES);
  if (long !== undefined)
    throw refuse(
      `a folder name in the export folder is ${Buffer.byteLength(long)} bytes long ('${long.slice(0, 40)}…'); at most ${MAX_NAME_BYTES} bytes each`,
    );
  if (parts.some((p) => p.startsWith(EXPORT_TEMP_PREFIX)))
    throw refuse(`names beginning with '${EXPORT_TEMP_PREFIX}' are ClawLoop's temporaries; choose another name`);
}

/** Copies a checkpoint's PEFT adapter (config with the base model named, and weights) into `dir`. */
export function copyPeftAdapter(checkpointFolder: string, dir: string, baseModel: string): string[] {
  const cfg = JSON.parse(fs.readFileSync(path.join(checkpointFolder, 'adapter_config.json'), 'utf8'));
  cfg.base_model_name_or_path = baseModel;
  fs.writeFileSync(path.join(dir, 'adapter_config.json'), JSON.stringify(cfg, null, 2) + '\n');
  fs.copyFileSync(path.join(checkpointFolder, 'adapter_model.safetensors'), path.join(dir, 'adapter_model.safetensors'));
  return ['adapter_config.json', 'adapter_model.safetensors'];
}
