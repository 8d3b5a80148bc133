/** What `deflow emulator` does (emulator.ts defines the command): runs the emulator until SIGINT/SIGTERM. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { DeflowError } from '../../common/index.js';
import { startEmulator } from '../../emulator/index.js';
import type { CliIO } from '../../common/index.js';
import { EXIT } from '../../common/index.js';

export interface EmulatorCommandOptions {
  readonly host: string;
  readonly port: string;
  readonly config?: string;
  readonly profile?: 'spec' | 'live';
  readonly tier?: 'basic' | 'premium';
  readonly timeScale?: string;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
}

export async function runEmulatorCommand(options: EmulatorCommandOptions, io: CliIO): Promise<number> {
  const port = parsePort(options.port);
  const tls = await readTls(options, io.cwd);
  const timeScale = options.timeScale === undefined ? undefined : parseTimeScale(options.timeScale);
  const overrides = {
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.tier ? { tier: options.tier } : {}),
    ...(timeScale === undefined ? {} : { time_scale: timeScale }),
  };
  const emulator = await startEmulator({
    host: options.host,
    port,
    cwd: io.cwd,
    overrides,
    ...(tls ? { tls } : {}),
    ...(options.config === undefined ? {} : { config: options.config }),
    onError: (error) => io.stderr.write(`deflow emulator: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
  });
  const { config } = emulator;
  const lines = [`deflow emulator listening on ${emulator.url}`];
  const scale = 1 / emulator.clock.realPerVirtual;
  lines.push(
    scale === 1
      ? '  time scale: 1 (real time)'
      : `  time scale: ${Number(scale.toPrecision(6))} (a real second is ${Number(scale.toPrecision(6))} emulator seconds: jobs, rate windows and daily resets run that much faster; times it reports are its own, virtual)`,
  );
  for (const key of config.keys) {
    const state = key.status === 'active' ? '' : `, ${key.status}`;
    lines.push(`  ${key.role} key: ${key.secret}  (${key.name}${state})`);
  }
  if (config.webhooks.secret !== null) lines.push(`  webhook secret: ${config.webhooks.secret}  (account default; signs deliveries without a webhook_secret)`);
  io.stdout.write(`${lines.join('\n')}\n`);
  await io.interrupted;
  await emulator.close();
  return EXIT.ok;
}

function parseTimeScale(value: string): number {
  const scale = Number(value);
  if (value.trim() === '' || !Number.isFinite(scale) || scale <= 0) {
    throw new DeflowError('E_USAGE_OPTION', `--time-scale: expected a number > 0 (emulator seconds per real second), got ${JSON.stringify(value)}`, { details: { option: '--time-scale' } });
  }
  return scale;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(port) || port > 65_535) {
    throw new DeflowError('E_USAGE_PORT', `--port: expected an integer from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return port;
}

async function readTls(options: EmulatorCommandOptions, cwd: string): Promise<{ cert: Buffer; key: Buffer } | undefined> {
  if (options.tlsCert === undefined && options.tlsKey === undefined) return undefined;
  if (options.tlsCert === undefined || options.tlsKey === undefined) {
    throw new DeflowError('E_USAGE_TLS', `${options.tlsCert === undefined ? '--tls-key' : '--tls-cert'} needs ${options.tlsCert === undefined ? '--tls-cert' : '--tls-key'} as well`);
  }
  const read = async (flag: string, file: string): Promise<Buffer> => {
    try {
      return await readFile(resolve(cwd, file));
    } catch (error) {
      throw new DeflowError('E_USAGE_TLS', `${flag} ${file}: cannot read the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
    }
  };
  return { cert: await read('--tls-cert', options.tlsCert), key: await read('--tls-key', options.tlsKey) };
}
