/**
 * The client of a command that talks to the service (service-options.ts describes its
 * options): an in-process emulator with `--emulator`, else the service at `DEAPI_BASE_URL`
 * with the key from `--api-key-file` or `DEAPI_API_KEY`.
 */
import { createFollowingClock, DeflowError } from '../common/index.js';
import { API_KEY_ENV, readApiKey } from '../client/index.js';
import { DEFAULT_BASE_URL } from '../client/index.js';
import { DeapiClient } from '../client/index.js';
import type { CliIO } from '../common/index.js';
import type { ServiceOptionValues } from './service-options.js';

/** A client ready to use, and how to release it (sockets, and the emulator when one was started). */
export interface ServiceSession {
  readonly client: DeapiClient;
  /** True when the client talks to an in-process emulator. */
  readonly emulated: boolean;
  close(): Promise<void>;
}

/**
 * Opens a client for a command. `role` picks which emulator key to use (`admin` for account
 * commands); with the real service the caller's key decides.
 */
export async function openServiceSession(values: ServiceOptionValues, io: CliIO, role: 'admin' | 'api' = 'api'): Promise<ServiceSession> {
  if (values.apiKey !== undefined) {
    throw new DeflowError('E_USAGE_KEY_FLAG', `--api-key is not accepted (a key in a flag leaks into shell history); set $${API_KEY_ENV} or use --api-key-file`);
  }
  const log = values.verbose ? (line: string) => io.stderr.write(`deflow: ${line}\n`) : undefined;
  if (values.emulator) {
    const { startEmulator } = await import('../emulator/index.js');
    const emulator = await startEmulator({ port: 0 });
    const apiKey = emulator.keys[role] || emulator.keys.admin || emulator.keys.api;
    const client = new DeapiClient({ apiKey, baseUrl: emulator.url, clock: emulator.clock, log });
    log?.(`emulator on ${emulator.url} (time scale ${1 / emulator.clock.realPerVirtual})`);
    return {
      client,
      emulated: true,
      close: async () => {
        await client.close();
        await emulator.close();
      },
    };
  }
  const apiKey = await readApiKey({ env: io.env, apiKeyFile: values.apiKeyFile, stdin: io.stdin, cwd: io.cwd });
  if (apiKey === undefined) {
    throw new DeflowError(
      'E_USAGE_NO_KEY',
      `no API key: set $${API_KEY_ENV}, or pass --api-key-file PATH (or - to read it from standard input); --emulator needs none`,
    );
  }
  const baseUrl = io.env.DEAPI_BASE_URL?.trim() || DEFAULT_BASE_URL;
  // Real time, unless the service is a deflow emulator in another process (its answers carry its clock).
  const client = new DeapiClient({ apiKey, baseUrl, clock: createFollowingClock(), log });
  return { client, emulated: false, close: () => client.close() };
}

/** Runs `action` with a session and always closes it. */
export async function withServiceSession<T>(
  values: ServiceOptionValues,
  io: CliIO,
  role: 'admin' | 'api',
  action: (session: ServiceSession) => Promise<T>,
): Promise<T> {
  const session = await openServiceSession(values, io, role);
  try {
    return await action(session);
  } finally {
    await session.close();
  }
}
