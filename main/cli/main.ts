import { processIo, type Io } from './io.js';
import { UsageError } from './args.js';

interface Command {
  summary: string;
  /** Loads the command's module only when it runs: `serve` must not load the engine (tfjs) on its HTTP thread. */
  load: () => Promise<{ usage: string; run: (argv: string[], io: Io) => Promise<number> }>;
}

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'serve a model through an OpenAI-compatible API and record conversations',
    load: async () => import('./serveCommand.js').then((m) => ({ usage: m.SERVE_USAGE, run: m.serveCommand })),
  },
  openclaw: {
    summary: 'point OpenClaw at the running ClawLoop (merges its entry into openclaw.json)',
    load: async () => import('./openclawCommand.js').then((m) => ({ usage: m.OPENCLAW_USAGE, run: m.openclawCommand })),
  },
  export: {
    summary: 'write recorded conversations as JSON Lines',
    load: async () => import('./exportCommand.js').then((m) => ({ usage: m.EXPORT_USAGE, run: m.exportCommand })),
  },
  checkpoints: {
    summary: 'list, roll back to or export training checkpoints',
    load: async () => import('./checkpointsCommand.js').then((m) => ({ usage: m.CHECKPOINTS_USAGE, run: m.checkpointsCommand })),
  },
  logprobs: {
    summary: 'print each token with log p(token | previous tokens)',
    load: async () => import('./logprobsCommand.js').then((m) => ({ usage: m.LOGPROBS_USAGE, run: m.logprobsCommand })),
  },
  generate: {
    summary: 'complete a prompt with a model',
    load: async () => import('./generateCommand.js').then((m) => ({ usage: m.GENERATE_USAGE, run: m.generateCommand })),
  },
  bench: {
    summary: 'measure that the agent learns a persona by being talked to',
    load: async () => import('./benchCommand.js').then((m) => ({ usage: m.BENCH_USAGE, run: m.benchCommand })),
  },
  doctor: {
    summary: 'show what ClawLoop can run on here (CPU kernels, GPU adapter) and what to install',
    load: async () => import('./doctorCommand.js').then((m) => ({ usage: m.DOCTOR_USAGE, run: m.doctorCommand })),
  },
};

function overview(): string {
  const rows = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `Usage: clawloop <command> [options]\n\nCommands:\n${rows.join('\n')}\n\nRun 'clawloop <command> --help' for a command's options.`;
}

/** Runs the CLI; returns the exit code (0 ok, 1 error, 2 usage error). */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(overview() + '\n');
    return name ? 0 : 2;
  }
  if (!Object.hasOwn(COMMANDS, name)) {
    io.log(`clawloop: unknown command '${name}'\n\n${overview()}`);
    return 2;
  }
  const cmd = await COMMANDS[name].load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(cmd.usage + '\n');
    return 0;
  }
  try {
    return await cmd.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.log(`clawloop ${name}: ${err.message}\n\n${cmd.usage}`);
      return 2;
    }
    io.log(`clawloop ${name}: ${(err as Error).message}`);
    if (process.env.CLAWLOOP_DEBUG) io.log((err as Error).stack ?? '');
    return 1;
  }
}
