/**
 * `deflow status --queue URL [RUN]`: the progress of a distributed run, read from the queue's
 * Redis (the account is the one of `DEAPI_API_KEY` or `--api-key-file` and `DEAPI_BASE_URL`):
 * items per step and state, unknown items, the account's workers (running, stopped or dead),
 * learned rates.
 */
import { resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { API_KEY_ENV, DEFAULT_BASE_URL, readApiKey } from '../../../client/index.js';
import type { CliIO } from '../../../common/index.js';
import { DeflowError, EXIT } from '../../../common/index.js';
import type { QueueRunStatusReport, WorkerPresence } from '../../../engine/distributed.js';
import { formatTable } from '../../text-table.js';

export interface QueueStatusFlags {
  readonly queue: string;
  readonly json?: boolean;
  readonly apiKeyFile?: string;
}

/** Real wall times of a queue run on the emulator's accelerated clock, from its run.json or, without it, from the queue (which keeps both). */
export interface QueueRunRealTimes {
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

export async function runQueueStatus(run: string | undefined, flags: QueueStatusFlags, io: CliIO, real?: QueueRunRealTimes): Promise<number> {
  const queue = await import('../../../engine/distributed.js');
  const target = queue.parseRedisUrl(flags.queue, '--queue');
  const apiKey = await readApiKey({ env: io.env, apiKeyFile: flags.apiKeyFile, stdin: io.stdin, cwd: io.cwd });
  if (apiKey === undefined) throw new DeflowError('E_USAGE_NO_KEY', `no API key: the queue keeps each account's runs apart, so set $${API_KEY_ENV} (or --api-key-file) to the key the run used`);
  const scope = queue.accountScope(io.env.DEAPI_BASE_URL?.trim() || DEFAULT_BASE_URL, apiKey);
  const redis = await queue.openRedis(target, { purpose: 'status' });
  try {
    const workflow = run !== undefined && (await isFile(resolve(io.cwd, run))) ? resolve(io.cwd, run) : undefined;
    const meta = await queue.findQueueRun(redis, scope, workflow !== undefined ? { workflow } : run !== undefined ? { runId: run } : {});
    if (meta === undefined) {
      const what = workflow !== undefined ? `no run of ${run}` : run === undefined ? 'no runs' : `no run ${JSON.stringify(run)}`;
      throw new DeflowError('E_USAGE_NO_RUN', `${target.display}: ${what} in this queue for this account`, { details: { run: run ?? null } });
    }
    const report = await queue.readQueueStatus(redis, scope, meta);
    // Without the state folder's run.json, the real dates the queue keeps (accelerated clocks only).
    const times = real ?? (meta.realStartedAt === undefined ? undefined : { startedAt: meta.realStartedAt, finishedAt: meta.realFinishedAt ?? null });
    if (flags.json) io.stdout.write(`${JSON.stringify(toJson(report, times), null, 2)}\n`);
    else io.stdout.write(`${formatQueueStatus(report, times).join('\n')}\n`);
    return EXIT.ok;
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

function toJson(report: QueueRunStatusReport, real: QueueRunRealTimes | undefined) {
  const { run } = report;
  const clock = { started_at: new Date(run.startedAt).toISOString(), finished_at: iso(run.finishedAt) };
  return {
    format_version: 1,
    run_id: run.runId,
    mode: 'queue',
    status: run.status,
    workflow: run.workflow,
    ...(real === undefined ? clock : { started_at: new Date(real.startedAt).toISOString(), finished_at: iso(real.finishedAt), emulator_time: clock }),
    steps: report.steps,
    unknowns: report.unknowns,
    workers: report.workers.map((w) => ({ host: w.host, pid: w.pid, state: w.state, last_seen: new Date(w.seen).toISOString(), started_at: iso(w.startedAt), stopped_at: iso(w.stoppedAt) })),
    rates: report.rates,
  };
}

export function formatQueueStatus(report: QueueRunStatusReport, real?: QueueRunRealTimes): string[] {
  const { run } = report;
  const dates = (started: number, finished: number | null): string => `${new Date(started).toISOString()}${finished === null ? '' : `, finished: ${new Date(finished).toISOString()}`}`;
  // On the emulator's accelerated clock: real dates, the emulator's beside them (as deflow status gives a local run's).
  const when =
    real === undefined
      ? dates(run.startedAt, run.finishedAt)
      : `${dates(real.startedAt, real.finishedAt)} (emulator time: started ${new Date(run.startedAt).toISOString()}${run.finishedAt === null ? '' : `, finished ${new Date(run.finishedAt).toISOString()}`})`;
  const lines = [`run ${run.runId} (queue): ${run.status}`, `workflow: ${run.workflow}`, `started: ${when}`, ''];
  const rows = report.steps.map((s) => [s.step, String(s.done), String(s.cached), String(s.running), String(s.waiting), String(s.deferred), String(s.unknown), String(s.failed), String(s.skipped), String(s.pending), `$${s.cost.toFixed(4)}`]);
  lines.push(formatTable(['step', 'done', 'cached', 'running', 'queued', 'deferred', 'unknown', 'failed', 'skipped', 'not queued', 'spent'], rows));
  if (report.unknowns.length > 0) {
    lines.push('', `unknown items (${report.unknowns.length}): the service may or may not have created their jobs; they are not submitted again`);
    for (const unknown of report.unknowns) lines.push(`  ${unknown.node}: ${unknown.reason}`);
  }
  if (report.workers.length > 0) {
    lines.push('', 'workers of this account:');
    for (const worker of report.workers) lines.push(`  ${worker.host} pid ${worker.pid}: ${describeWorker(worker)}`);
  }
  if (report.rates.length > 0) {
    lines.push('', 'learned rate limits:');
    for (const rate of report.rates) lines.push(`  ${rate.bucket}: ${rate.limit} per ${rate.window_seconds} s${rate.daily_remaining === null ? '' : `, ${rate.daily_remaining} left today`}`);
  }
  return lines;
}

/** A worker's state as a person reads it, with real wall times. */
function describeWorker(worker: WorkerPresence): string {
  const seen = new Date(worker.seen).toISOString();
  switch (worker.state) {
    case 'running':
      return `running (last heartbeat ${seen})`;
    case 'stopped':
      return `stopped (closed cleanly at ${new Date(worker.stoppedAt ?? worker.seen).toISOString()})`;
    case 'dead':
      return `dead (no heartbeat since ${seen}: killed or cut off; its jobs go to other workers once their locks lapse)`;
    case 'seen':
      return `last seen ${seen} (a worker without heartbeats: alive or not is unknown)`;
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
