import { GENERATE_USAGE, generateCommand } from './generateCommand.js';
import { processIo, type Io } from './io.js';
import { LOGPROBS_USAGE, logprobsCommand } from './logprobsCommand.js';
import { UsageError } from './args.js';
import { CHECKPOINTS_USAGE, checkpointsCommand } from './checkpointsCommand.js';
import { EXPORT_USAGE, exportCommand } from './exportCommand.js';
import { SERVE_USAGE, serveCommand } from './serveCommand.js';
import { BENCH_USAGE, benchCommand } from './benchCommand.js';
import { DOCTOR_USAGE, doctorCommand } from './doctorCommand.js';

interface Command {
  summary: string;
  usage: string;
  run: (argv: string[], io: Io) => Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  serve: { summary: 'serve a model through an OpenAI-compatible API and record conversations', usage: SERVE_USAGE, run: serveCommand },
  export: { summary: 'write recorded conversations as JSON Lines', usage: EXPORT_USAGE, run: exportCommand },
  checkpoints: { summary: 'list, roll back to or export training checkpoints', usage: CHECKPOINTS_USAGE, run: checkpointsCommand },
  logprobs: { summary: 'print each token with log p(token | previous tokens)', usage: LOGPROBS_USAGE, run: logprobsCommand },
  generate: { summary: 'complete a prompt with a model', usage: GENERATE_USAGE, run: generateCommand },
  bench: { summary: 'measure that the agent learns a persona by being talked to', usage: BENCH_USAGE, run: benchCommand },
  doctor: { summary: 'show what ClawLoop can run on here (CPU kernels, GPU adapter) and what to install', usage: DOCTOR_USAGE, run: doctorCommand },
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
  const cmd = COMMANDS[name];
  if (!cmd) {
    io.log(`clawloop: unknown command '${name}'\n\n${overview()}`);
    return 2;
  }
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
