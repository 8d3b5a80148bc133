#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { API_KEY_ENV, isDeflowError } from '../common/index.js';
import type { ModelInfo } from '../service/index.js';
import type { CliIO } from '../common/index.js';
import { registerAccountCommand } from './commands/account.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerEmulatorCommand } from './commands/emulator.js';
import { registerGcCommand } from './commands/gc.js';
import { registerInitCommand } from './commands/init.js';
import { EXIT, exitCodeFor, exitCodeForSignal } from '../common/index.js';
import { registerModelsCommand } from './commands/models.js';
import { registerQuoteCommand } from './commands/quote.js';
import { registerReportCommand } from './commands/report.js';
import { registerRunCommand } from './commands/run.js';
import { registerStatusCommand } from './commands/status.js';
import { registerValidateCommand } from './commands/validate.js';
import { registerWorkerCommand } from './commands/worker.js';
import { VERSION } from './version.js';

/**
 * Builds the command tree. Each command file adds itself (options and help only) and reports
 * its exit code; what a command does lives in its `<command>-action.ts`, imported when it runs,
 * so that `--help` or one command never loads the modules of all the others.
 */
export function buildProgram(io: CliIO, setExitCode: (code: number) => void): Command {
  const program = new Command('deflow')
    .description('Run declarative YAML workflows of AI inference jobs against deAPI.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  // `.env` of the current folder, then of the workflow a command names (dot-env.ts); the environment wins.
  program.hook('preAction', async (_program, action) => {
    if (action.name() === 'completion') return;
    const { loadDotEnv } = await import('./dot-env.js');
    await loadDotEnv(io, action.args[0]);
  });
  const wrap =
    <A extends unknown[]>(action: (...args: A) => Promise<number>) =>
    async (...args: A): Promise<void> => {
      setExitCode(await action(...args));
    };
  registerEmulatorCommand(program, io, wrap);
  registerValidateCommand(program, io, wrap, { createModelFetcher: liveModelFetcher });
  registerQuoteCommand(program, io, wrap);
  registerRunCommand(program, io, wrap);
  registerStatusCommand(program, io, wrap);
  registerReportCommand(program, io, wrap);
  registerModelsCommand(program, io, wrap);
  registerAccountCommand(program, io, wrap);
  registerWorkerCommand(program, io, wrap);
  registerGcCommand(program, io, wrap);
  registerInitCommand(program, io, wrap);
  registerCompletionCommand(program, io, wrap);
  return program;
}


/** With `DEAPI_API_KEY` set, `validate` checks limits against the service's live model list. */
function liveModelFetcher(io: CliIO): (() => Promise<readonly ModelInfo[]>) | undefined {
  const apiKey = io.env[API_KEY_ENV]?.trim();
  if (!apiKey) return undefined;
  return async () => {
    const { DeapiClient, DEFAULT_BASE_URL } = await import('../client/index.js');
    const baseUrl = io.env.DEAPI_BASE_URL?.trim() || DEFAULT_BASE_URL;
    const client = new DeapiClient({ apiKey, baseUrl });
    try {
      return await client.listModels();
    } finally {
      await client.close();
    }
  };
}

/**
 * Options with an optional value, given only as `--option=VALUE` (`--wait-lock[=DURATION]`):
 * alone, they take no value, and the word after them stays what it is (`run --wait-lock w.yaml`
 * runs w.yaml), which commander would otherwise take as the option's value.
 */
const ATTACHED_VALUE_OPTIONS: ReadonlySet<string> = new Set(['--wait-lock']);

function attachOptionalValues(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => ((end === -1 || i < end) && ATTACHED_VALUE_OPTIONS.has(arg) ? `${arg}=` : arg));
}

/** Runs the CLI with `argv` (without node and script) and resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(attachOptionalValues(argv), { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other commander error is a usage error (already printed).
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (isDeflowError(error)) {
      io.stderr.write(`deflow: ${error.message}\n`);
      return exitCodeFor(error);
    }
    io.stderr.write(`deflow: unexpected error (please report it):\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT.internal;
  }
}

function processIO(): { io: CliIO; firstSignal: () => NodeJS.Signals | undefined } {
  let interrupted = false;
  let first: NodeJS.Signals | undefined;
  let resolveInterrupt: () => void = () => {};
  const interruptedPromise = new Promise<void>((resolve) => {
    resolveInterrupt = resolve;
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) {
      // A second signal exits at once.
      process.exit(exitCodeForSignal(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM'));
    }
    interrupted = true;
    first = signal;
    resolveInterrupt();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The standard streams are made when first read: process.stdin on a file or /dev/null is a
  // file stream, whose built-ins (fs/promises, readline and more) a command that never reads
  // stdin would compile at every start (docs/performance.md).
  const io: CliIO = {
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    interrupted: interruptedPromise,
    isInterrupted: () => interrupted,
  };
  return { io, firstSignal: () => first };
}

/**
 * Runs the CLI as a process: the exit code is the process's, and the process ends once the
 * command has (long-lived handles such as keep-alive sockets and signal listeners must not
 * keep a finished command alive). The package's bin (start-bundle.ts) calls it.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const { io, firstSignal } = processIO();
  let code = await runCli(argv, io);
  // A command stopped by the first signal ends 130; stopped by SIGTERM, the process says so: 143.
  if (code === EXIT.interrupted && firstSignal() === 'SIGTERM') code = exitCodeForSignal('SIGTERM');
  process.exitCode = code;
  setImmediate(() => process.exit(code));
}

/** True when this module is the process's script (`node dist/cli/main.js`: the build before it is bundled). */
function isEntryPoint(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}
if (isEntryPoint()) void main();
