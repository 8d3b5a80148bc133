/** Runs the deflow CLI in-process with captured output (shared by the CLI and canary tests). */
import { PassThrough, Readable } from 'node:stream';
import type { CliIO } from '../../src/common/cli-io.js';
import { runCli } from '../../src/cli/main.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `deflow ...argv` with `env` (nothing inherited from the test process) and optional stdin text. */
export async function runDeflow(argv: readonly string[], options: { env?: NodeJS.ProcessEnv; stdin?: string; cwd?: string } = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const io: CliIO = {
    stdout,
    stderr,
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    interrupted: new Promise<void>(() => {}),
    isInterrupted: () => false,
  };
  const code = await runCli(argv, io);
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
