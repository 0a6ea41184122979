import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from './apiError.js';

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Refuses a model folder chosen through the API whose files are links to files outside it, before
 * any of them is opened: reading one would let a caller learn the start of any file the user can
 * read from the error ("Unexpected token 'T', "TOPSECRET-"…"), or feed it to the model. Links into
 * a Hugging Face cache's `blobs/` (its snapshots are made of them) are fine. `clawloop serve --model`
 * still follows any link: its caller is the user.
 *
 * @param param the request field named in the 400 (`model_dir`, `judge`).
 */
export function refuseLinksOut(dir: string, param: string): void {
  let real: string;
  let names: string[];
  try {
    real = fs.realpathSync(dir);
    names = fs.readdirSync(real);
  } catch {
    return; // not a folder: the model folder check says so
  }
  // <cache>/models--org--name/snapshots/<revision>/config.json -> ../../blobs/<hash>
  const blobs = path.join(real, '..', '..', 'blobs');
  for (const name of names) {
    const file = path.join(real, name);
    if (!fs.lstatSync(file).isSymbolicLink()) continue;
    let target: string;
    try {
      target = fs.realpathSync(file);
    } catch {
      continue; // a dangling link: reading it fails with its name alone
    }
    if (inside(target, real) || (path.basename(path.dirname(real)) === 'snapshots' && inside(target, blobs))) continue;
    throw new ApiError(
      400,
      `${file} is a link to a file outside the model folder; a folder chosen here may only link inside itself (or into a Hugging Face cache's blobs/): copy the file into the folder, or start clawloop serve --model with it`,
      'invalid_request_error',
      'invalid_model_dir',
      param,
    );
  }
}
