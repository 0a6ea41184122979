/**
 * How `npm run bench:personalize` runs its benchmarks: each in its own `clawloop bench personalize`
 * process (so its wall and CPU time are its own), up to `jobs` at a time, and which commands a
 * results folder holds (run.json).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { funnelLines } from '../../main/personalize/funnelReport.js';
import type { PersonalizeResult } from '../../main/personalize/personalize.js';

export interface RunSpec {
  persona: string;
  method: string;
  seed: number;
  /** Where the run's JSON goes. */
  file: string;
}

export interface Invocation {
  command: string;
  started: string;
  [field: string]: unknown;
}

/**
 * Writes the folder's run.json: this invocation alone, or, when earlier results are kept
 * (`--skip-existing`), after the invocations already recorded. Returns what it wrote.
 */
export function recordInvocation(out: string, keepEarlier: boolean, inv: Invocation): Invocation[] {
  const file = path.join(out, 'run.json');
  let earlier: Invocation[] = [];
  if (keepEarlier && fs.existsSync(file)) {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { invocations?: Invocation[] } & Partial<Invocation>;
    earlier = raw.invocations ?? (raw.command ? [raw as Invocation] : []);
  }
  const invocations = [...earlier, inv];
  fs.writeFileSync(file, `${JSON.stringify({ invocations }, null, 2)}\n`);
  return invocations;
}

/** The `clawloop` command (bin/clawloop.js, which runs dist/main/cli/main.js). */
const CLAWLOOP = fileURLToPath(new URL('../../../bin/clawloop.js', import.meta.url));

/** One benchmark in a child process; its lines are printed with the run's name in front. */
function runOne(spec: RunSpec, cli: string[], prefix: boolean): Promise<void> {
  const args = [...cli, '--persona', spec.persona, '--method', spec.method, '--seed', String(spec.seed), '--json', spec.file];
  const name = `${spec.persona} · ${spec.method} · seed ${spec.seed}`;
  console.log(`=== ${name}`);
  const child = spawn(process.execPath, [CLAWLOOP, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const relay = (stream: NodeJS.ReadableStream) => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const l of lines) console.log(prefix ? `[${name}] ${l}` : l);
    });
  };
  relay(child.stdout!);
  relay(child.stderr!);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`${name} failed (${signal ?? `exit code ${code}`}); its output is above`));
      const r = JSON.parse(fs.readFileSync(spec.file, 'utf8')) as PersonalizeResult;
      console.log(
        `${spec.persona} ${spec.method} s${spec.seed}: score ${r.score_before.toFixed(2)} -> ${r.score_after.toFixed(2)}, accuracy ${r.accuracy_before.toFixed(3)} -> ${r.accuracy_after.toFixed(3)}, 3 in a row after ${r.sessions_to_3_in_a_row ?? '—'} sessions, ${r.gate.held_back} held back, ${(r.wall_s / 60).toFixed(1)} min`,
      );
      if (r.funnel) console.log(funnelLines(r).join('\n'));
      resolve();
    });
  });
}

/** Runs every spec, `jobs` at a time, in order; the first failure stops new runs and is thrown. */
export async function runAll(specs: RunSpec[], jobs: number, cli: string[]): Promise<void> {
  const queue = [...specs];
  let failure: Error | null = null;
  const worker = async () => {
    for (let spec = queue.shift(); spec && !failure; spec = queue.shift()) {
      try {
        await runOne(spec, cli, jobs > 1);
      } catch (err) {
        failure ??= err as Error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, specs.length) }, worker));
  if (failure) throw failure;
}
