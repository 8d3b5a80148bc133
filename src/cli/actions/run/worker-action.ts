/** What `deflow worker` does (worker.ts defines the command): takes queued jobs until stopped. */
import { API_KEY_ENV, DEFAULT_BASE_URL, DeapiClient, readApiKey } from '../../../client/index.js';
import type { CliIO } from '../../../common/index.js';
import { createFollowingClock, DeflowError, EXIT } from '../../../common/index.js';
import type { RunEvent } from '../../../engine/index.js';
import { type MetricsServer, serveMetrics, traceSettings } from '../../../report/index.js';
import { VERSION } from '../../version.js';
import { parsePort } from './run-queued.js';
import { type DeliveryKeeper, keepDeliveries } from '../../../engine/index.js';
import { resolve } from 'node:path';

export interface WorkerFlags {
  readonly queue?: string;
  readonly concurrency?: string;
  readonly apiKeyFile?: string;
  readonly apiKey?: string;
  readonly verbose?: boolean;
  readonly quiet?: boolean;
  readonly lockMs?: string;
  readonly grace?: string;
  readonly metricsPort?: string;
  readonly webhookUrl?: string;
  readonly webhookListen?: string;
  readonly stateDir?: string;
}

export async function runWorker(flags: WorkerFlags, io: CliIO): Promise<number> {
  if (flags.queue === undefined) throw new DeflowError('E_USAGE_OPTION', '--queue: expected the Redis URL of the queue (redis://HOST:PORT, as given to deflow run --queue)', { details: { option: '--queue' } });
  if (flags.apiKey !== undefined) throw new DeflowError('E_USAGE_KEY_FLAG', `--api-key is not accepted (a key in a flag leaks into shell history); set $${API_KEY_ENV} or use --api-key-file`);
  const concurrency = whole('--concurrency', flags.concurrency ?? '100', 1);
  const lockMs = whole('--lock-ms', flags.lockMs ?? '30000', 500);
  const graceMs = whole('--grace', flags.grace ?? '15', 0) * 1000;
  const metricsPort = flags.metricsPort === undefined ? undefined : parsePort(flags.metricsPort);
  const hooks = webhookFlags(flags, io.cwd);
  const queue = await import('../../../engine/distributed.js');
  const target = queue.parseRedisUrl(flags.queue, '--queue');
  const apiKey = await readApiKey({ env: io.env, apiKeyFile: flags.apiKeyFile, stdin: io.stdin, cwd: io.cwd });
  if (apiKey === undefined) throw new DeflowError('E_USAGE_NO_KEY', `no API key: set $${API_KEY_ENV}, or pass --api-key-file PATH (or - to read it from standard input)`);
  const baseUrl = io.env.DEAPI_BASE_URL?.trim() || DEFAULT_BASE_URL;
  const scope = queue.accountScope(baseUrl, apiKey);
  const say = (line: string): void => {
    if (!flags.quiet) io.stderr.write(`deflow worker: ${line}\n`);
  };
  // Real time, unless the service is a deflow emulator in another process (its answers carry its clock).
  const clock = createFollowingClock();
  const shared = await queue.openSharedGovernor(target, { scope, clock });
  const log = flags.verbose ? (line: string) => io.stderr.write(`deflow: ${line}\n`) : undefined;
  const client = new DeapiClient({ apiKey, baseUrl, clock, governor: shared.governor, log });
  const metrics = metricsPort === undefined ? null : await workerMetrics(metricsPort);
  let keeper: DeliveryKeeper | null = null;
  // The OTEL_* variables: a span per job, joining the coordinator's trace (OpenTelemetry loaded only then).
  const tracing = traceSettings(io.env, undefined);
  const tracer = tracing === null ? null : (await import('../../../report/tracing.js')).openWorkerTracer({ settings: tracing, version: VERSION });
  try {
    if (metrics !== null) say(`metrics: ${metrics.server.url}`);
    if (hooks !== null) {
      keeper = await keepDeliveries({ ...hooks, clock });
      const unreachable = await keeper.selfCheck();
      if (unreachable !== null) say(`--webhook-url ${hooks.url}: a signed test delivery did not reach the receiver at ${hooks.listen} (${unreachable}); it answers only what reaches it`);
      say(`answering webhook deliveries for earlier runs of ${hooks.stateDir} at ${hooks.url}`);
    }
    const worker = await queue.startQueueWorker({
      target,
      redis: shared.redis,
      governor: shared.governor,
      client,
      scope,
      concurrency,
      lockMs,
      graceMs,
      log: say,
      onEvent: (event) => {
        describe(event, say);
        metrics?.handle(event);
        tracer?.handle(event);
      },
      ...(tracer === null ? {} : { onJob: tracer.jobStarted }),
    });
    say(`waiting for jobs on ${target.display} (${concurrency} per pool); stop with Ctrl-C`);
    await io.interrupted;
    say('stopping: no new jobs; jobs in flight settle or go back to the queue');
    await worker.close();
    say(`stopped after ${worker.finished} job(s)${keeper === null ? '' : `; ${keeper.received()} webhook deliveries answered`}`);
    return EXIT.ok;
  } finally {
    await keeper?.close();
    await tracer?.finish();
    await metrics?.close();
    await client.close();
    await shared.close();
  }
}

/** `--metrics-port`: the worker's run metrics and its liveness on /metrics. */
async function workerMetrics(port: number): Promise<{ server: MetricsServer; handle: (event: RunEvent) => void; close: () => Promise<void> }> {
  const { RunMetrics, WorkerMetrics } = await import('../../../report/metrics.js');
  const run = new RunMetrics({ workflow: '', tasks: new Map() });
  const worker = new WorkerMetrics(run.registry);
  const server = await serveMetrics(run, port);
  return {
    server,
    handle: (event) => {
      run.handle(event);
      worker.handle(event);
    },
    close: async () => {
      worker.stopped();
      await server.close();
    },
  };
}

/** One line per finished item. */
function describe(event: RunEvent, say: (line: string) => void): void {
  const at = 'node' in event ? `${event.node.step}[${event.node.index}]` : '';
  if (event.type === 'item-done') say(`${at} done${event.cached ? ' (cached)' : ''}${event.outputs.length > 0 ? ` → ${event.outputs.join(', ')}` : ''}`);
  else if (event.type === 'item-failed') say(`${at} failed: ${event.error.message}`);
  else if (event.type === 'item-unknown') say(`${at} unknown: ${event.reason}`);
  else if (event.type === 'item-timed-out') say(`${at} timed out: ${event.error.message} (job ${event.requestId} still runs; the next session adopts it)`);
}

/** `--webhook-url`, `--webhook-listen` and `--state-dir` go together. */
function webhookFlags(flags: WorkerFlags, cwd: string): { url: string; listen: string; stateDir: string } | null {
  const given = { '--webhook-url': flags.webhookUrl, '--webhook-listen': flags.webhookListen, '--state-dir': flags.stateDir };
  const set = Object.entries(given).filter(([, value]) => value !== undefined);
  if (set.length === 0) return null;
  const missing = Object.entries(given).filter(([, value]) => value === undefined).map(([name]) => name);
  if (missing.length > 0) {
    throw new DeflowError('E_USAGE_OPTION', `${set[0]![0]}: expected ${missing.join(' and ')} as well (the service calls the URL, the receiver listens at the address, and the state folder holds the runs whose deliveries it answers)`, {
      details: { option: set[0]![0] },
    });
  }
  return { url: flags.webhookUrl!, listen: flags.webhookListen!, stateDir: resolve(cwd, flags.stateDir!) };
}

function whole(option: string, value: string, min: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number < min) throw new DeflowError('E_USAGE_OPTION', `${option}: expected a whole number ≥ ${min}, got ${JSON.stringify(value)}`, { details: { option } });
  return number;
}
