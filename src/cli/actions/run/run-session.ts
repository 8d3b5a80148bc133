/**
 * The client `deflow run` uses. It differs from other commands' in two ways: its rate
 * governor can run the engine's intent hook between a permit and the POST (GatedGovernor),
 * and `--emulator` starts the in-process emulator on a fast virtual clock (a run of 30 s jobs
 * should not take minutes in a demo), shared with the client so that windows, Retry-After
 * and job durations all agree.
 */
import { readApiKey, API_KEY_ENV } from '../../../client/index.js';
import { DEFAULT_BASE_URL } from '../../../client/index.js';
import { DeapiClient } from '../../../client/index.js';
import { createFollowingClock, DeflowError } from '../../../common/index.js';
import type { Governor } from '../../../client/index.js';
import { GatedGovernor } from '../../../engine/index.js';
import type { SharedGovernor } from '../../../engine/distributed.js';
import type { Clock } from '../../../common/index.js';
import type { CliIO } from '../../../common/index.js';
import type { ServiceOptionValues } from '../../service-options.js';

/** Virtual seconds per real second of the emulator `--emulator` starts, unless its config says otherwise. */
export const DEMO_TIME_SCALE = 20;

export interface RunSessionOptions extends ServiceOptionValues {
  /** `--emulator-config`: a config file for the in-process emulator. */
  readonly emulatorConfig?: string;
  /** `--governor URL`: share the account's rate-limit buckets through this Redis. */
  readonly governor?: string;
  /** The option that named the Redis URL, for messages. @default '--governor' */
  readonly governorOption?: string;
}

export interface RunSession {
  readonly client: DeapiClient;
  readonly governor: Governor;
  /** With `--governor` (or `--queue`): the shared governor (null otherwise). */
  readonly shared: SharedGovernor | null;
  /** With a shared governor: the account's scope in Redis (a digest of base URL and key). */
  readonly scope: string | null;
  /** Set when the client talks to an in-process emulator. */
  readonly emulator: { readonly url: string; readonly timeScale: number } | null;
  close(): Promise<void>;
}

/** Opens the client of a run (and the emulator, with `--emulator`). */
export async function openRunSession(values: RunSessionOptions, io: CliIO): Promise<RunSession> {
  if (values.apiKey !== undefined) {
    throw new DeflowError('E_USAGE_KEY_FLAG', `--api-key is not accepted (a key in a flag leaks into shell history); set $${API_KEY_ENV} or use --api-key-file`);
  }
  if (values.emulatorConfig !== undefined && !values.emulator) {
    throw new DeflowError('E_USAGE_OPTION', '--emulator-config: only with --emulator');
  }
  const log = values.verbose ? (line: string) => io.stderr.write(`deflow: ${line}\n`) : undefined;
  if (values.emulator) {
    const { startEmulator } = await import('../../../emulator/index.js');
    const { loadEmulatorConfig } = await import('../../../emulator/index.js');
    const config = await loadEmulatorConfig(values.emulatorConfig, { cwd: io.cwd });
    const timeScale = values.emulatorConfig !== undefined && config.time_scale !== 1 ? config.time_scale : DEMO_TIME_SCALE;
    const emulator = await startEmulator({ port: 0, cwd: io.cwd, config: { ...config, time_scale: timeScale } as never });
    const apiKey = emulator.keys.api || emulator.keys.admin;
    let opened: OpenedGovernor;
    try {
      opened = await openGovernor(values, emulator.url, apiKey, emulator.clock);
    } catch (error) {
      await emulator.close();
      throw error;
    }
    const { shared, scope } = opened;
    const governor = shared?.governor ?? new GatedGovernor({ clock: emulator.clock });
    const client = new DeapiClient({ apiKey, baseUrl: emulator.url, clock: emulator.clock, governor, log });
    log?.(`emulator on ${emulator.url} (time scale ${timeScale})`);
    return {
      client,
      governor,
      shared,
      scope,
      emulator: { url: emulator.url, timeScale },
      close: async () => {
        await client.close();
        await shared?.close();
        await emulator.close();
      },
    };
  }
  const apiKey = await readApiKey({ env: io.env, apiKeyFile: values.apiKeyFile, stdin: io.stdin, cwd: io.cwd });
  if (apiKey === undefined) {
    throw new DeflowError('E_USAGE_NO_KEY', `no API key: set $${API_KEY_ENV}, or pass --api-key-file PATH (or - to read it from standard input); --emulator needs none`);
  }
  const baseUrl = io.env.DEAPI_BASE_URL?.trim() || DEFAULT_BASE_URL;
  // Real time, unless the service is a deflow emulator in another process: its answers carry
  // its clock, and the run's waits and journal follow it from the first answer on.
  const clock = createFollowingClock();
  const { shared, scope } = await openGovernor(values, baseUrl, apiKey, clock);
  const governor = shared?.governor ?? new GatedGovernor({ clock });
  const client = new DeapiClient({ apiKey, baseUrl, clock, governor, log });
  return {
    client,
    governor,
    shared,
    scope,
    emulator: null,
    close: async () => {
      await client.close();
      await shared?.close();
    },
  };
}

/** `--governor URL`: the account's buckets shared through Redis with every process that names the same account. */
interface OpenedGovernor {
  readonly shared: SharedGovernor | null;
  readonly scope: string | null;
}

async function openGovernor(values: RunSessionOptions, baseUrl: string, apiKey: string, clock: Clock): Promise<OpenedGovernor> {
  if (values.governor === undefined) return { shared: null, scope: null };
  // Loaded on demand: runs without --governor or --queue never load the Redis client.
  const { accountScope, openSharedGovernor, parseRedisUrl } = await import('../../../engine/distributed.js');
  const target = parseRedisUrl(values.governor, values.governorOption ?? '--governor');
  const scope = accountScope(baseUrl, apiKey);
  return { shared: await openSharedGovernor(target, { scope, clock }), scope };
}
