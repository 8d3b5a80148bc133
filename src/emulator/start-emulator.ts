/**
 * The library entry of the emulator: `startEmulator(options)` loads the config, builds one
 * instance of every part on a shared virtual clock and listens on loopback.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Clock, createVirtualClock } from '../common/index.js';
import { DeflowError } from '../common/index.js';
import { Account } from './account/account.js';
import { KeyStore } from './account/api-keys.js';
import { type ConfigOverrides, type EmulatorConfigInput, loadEmulatorConfig } from './config/config.js';
import { FaultInjector } from './config/faults.js';
import { type EmulatorJobSummary, type EmulatorStats, StatsRecorder, summariseJob } from './http/introspection.js';
import { JobStore } from './jobs/job-store.js';
import { createModelRegistry } from './requests/model-registry.js';
import { createRandom } from './config/random.js';
import { RateLimiter } from './limits/rate-limiter.js';
import { createEmulatorServer, handleEmulatorRequest } from './http/server.js';
import type { EmulatorServices } from './http/services.js';
import type { EmulatorConfig, EmulatorRuntime } from './types.js';
import { WebhookSender } from './webhooks/webhook-sender.js';

export type { ConfigOverrides, EmulatorConfigInput } from './config/config.js';
export type { EmulatorJobSummary, EmulatorStats } from './http/introspection.js';
export type { EmulatorConfig } from './types.js';

/** Options of {@link startEmulator}. */
export interface StartEmulatorOptions {
  /** A config file path (YAML or JSON, relative to `cwd`) or a config object. Defaults apply to what is left out. */
  readonly config?: string | EmulatorConfigInput;
  /** `profile` / `tier` set over the config's (the CLI's `--profile` and `--tier`). */
  readonly overrides?: ConfigOverrides;
  /** Serve HTTPS with this PEM certificate and key (for clients that insist on `https://`). @default plain HTTP */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** The clock to run on. @default createVirtualClock({ timeScale: config.time_scale }) */
  readonly clock?: Clock;
  /** Directory a relative config path is read from. @default process.cwd() */
  readonly cwd?: string;
  /** Called with unexpected errors (bugs) while answering. @default writes the stack to stderr */
  readonly onError?: (error: unknown) => void;
}

/** A listening emulator. */
export interface RunningEmulator {
  /** Base URL, `http://127.0.0.1:PORT` (`https://…` with `tls`). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The resolved config, defaults applied. */
  readonly config: EmulatorConfig;
  /** The clock every window, job and header runs on; share it with an in-process client. */
  readonly clock: Clock;
  /** Secrets of the first active admin and api keys ('' when the config has none of a role). */
  readonly keys: { readonly admin: string; readonly api: string };
  /** Same as GET /_emulator/stats. */
  stats(): EmulatorStats;
  /** Same as GET /_emulator/jobs. */
  jobs(): EmulatorJobSummary[];
  /** Stops jobs and webhooks, closes every connection; resolves when closed. */
  close(): Promise<void>;
}

/** Starts an emulator. Throws a DeflowError on a bad config (`E_CONFIG_…`) or a busy port. */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const config = await loadEmulatorConfig(options.config, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.overrides === undefined ? {} : { overrides: options.overrides }),
  });
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? createVirtualClock({ timeScale: config.time_scale });
  let url = '';
  const runtime: EmulatorRuntime = { clock, baseUrl: () => url, random: createRandom(config.seed, 'jobs') };
  const keys = new KeyStore(config.keys, clock);
  const account = new Account(config.balance, clock);
  const webhooks = new WebhookSender(runtime, config.webhooks);
  const jobs = new JobStore(runtime, config.jobs, account, webhooks);
  const tempDir = await mkdtemp(join(tmpdir(), 'deflow-emulator-'));
  const stats = new StatsRecorder();
  const services: EmulatorServices = {
    config,
    clock,
    keys,
    account,
    limiter: new RateLimiter(clock),
    models: createModelRegistry(),
    jobs,
    faults: new FaultInjector(config.faults, createRandom(config.seed, 'faults')),
    webhooks,
    stats,
    tempDir,
    baseUrl: () => url,
    onError: options.onError ?? ((error) => process.stderr.write(`deflow emulator: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)),
  };
  let server: HttpServer | HttpsServer;
  try {
    server = options.tls ? createTlsServer(options.tls, services) : createEmulatorServer(services);
  } catch (error) {
    jobs.close();
    webhooks.close();
    await rm(tempDir, { recursive: true, force: true });
    throw error;
  }
  const requestedPort = options.port ?? 0;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(requestedPort, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    jobs.close();
    webhooks.close();
    await rm(tempDir, { recursive: true, force: true });
    throw listenError(error, host, requestedPort);
  }
  const port = (server.address() as AddressInfo).port;
  url = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const firstActive = (role: 'admin' | 'api'): string => config.keys.find((k) => k.role === role && k.status === 'active')?.secret ?? '';
  let closing: Promise<void> | undefined;
  return {
    url,
    host,
    port,
    config,
    clock,
    keys: { admin: firstActive('admin'), api: firstActive('api') },
    stats: () => stats.snapshot(),
    jobs: () => jobs.list().map(summariseJob),
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        jobs.close();
        webhooks.close();
        await closed;
        await rm(tempDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

/** An HTTPS server answering as {@link createEmulatorServer} does; a bad certificate or key is a usage error. */
function createTlsServer(tls: NonNullable<StartEmulatorOptions['tls']>, services: EmulatorServices): HttpsServer {
  let server: HttpsServer;
  try {
    server = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => handleEmulatorRequest(req, res, services));
  } catch (error) {
    throw new DeflowError('E_USAGE_TLS', `cannot serve HTTPS: the certificate or key is not usable (${(error as Error).message})`, { cause: error });
  }
  server.requestTimeout = 0;
  return server;
}

function listenError(error: unknown, host: string, port: number): DeflowError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new DeflowError('E_EMULATOR_PORT_IN_USE', `cannot listen on ${host}:${port}: the port is already in use (pick another with --port, or --port 0 for a free one)`, {
      cause: error,
      details: { host, port },
    });
  }
  return new DeflowError('E_EMULATOR_LISTEN', `cannot listen on ${host}:${port}: ${code ?? String(error)}`, { cause: error, details: { host, port } });
}
