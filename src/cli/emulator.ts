/**
 * `deflow emulator [--host 127.0.0.1] [--port 8787] [--config FILE]`: runs the local service
 * emulator until SIGINT/SIGTERM. Prints its base URL first (scripts read that line), then
 * the configured keys.
 */
import type { Command } from 'commander';
import { DeflowError } from '../common/index.js';
import { startEmulator } from '../emulator/index.js';
import type { CliIO } from '../common/index.js';
import { EXIT } from '../common/index.js';
import type { ActionWrapper } from './main.js';

interface EmulatorCommandOptions {
  readonly host: string;
  readonly port: string;
  readonly config?: string;
}

/** Adds the `emulator` command. */
export function registerEmulatorCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  program
    .command('emulator')
    .description('Run a local emulator of the service (spec-exact auth, rate limits, jobs, prices, webhooks).')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8787')
    .option('--config <file>', 'emulator config, YAML or JSON (schemas/emulator.schema.json)')
    .action(wrap(async (options: EmulatorCommandOptions) => runEmulatorCommand(options, io)));
}

async function runEmulatorCommand(options: EmulatorCommandOptions, io: CliIO): Promise<number> {
  const port = parsePort(options.port);
  const emulator = await startEmulator({
    host: options.host,
    port,
    cwd: io.cwd,
    ...(options.config === undefined ? {} : { config: options.config }),
    onError: (error) => io.stderr.write(`deflow emulator: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
  });
  const lines = [`deflow emulator listening on ${emulator.url}`];
  for (const key of emulator.config.keys) {
    const state = key.status === 'active' ? '' : `, ${key.status}`;
    lines.push(`  ${key.role} key: ${key.secret}  (${key.name}${state})`);
  }
  io.stdout.write(`${lines.join('\n')}\n`);
  await io.interrupted;
  await emulator.close();
  return EXIT.ok;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(port) || port > 65_535) {
    throw new DeflowError('E_USAGE_PORT', `--port: expected an integer from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return port;
}
