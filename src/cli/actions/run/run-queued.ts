/**
 * `deflow run WORKFLOW --queue URL`: the coordinator of a distributed run. Validation, the
 * quote, the report and the exit codes are those of an embedded run; the jobs are enqueued
 * in Redis for `deflow worker` processes, and the run's state is the queue's (running it
 * again resumes it; `deflow status --queue URL` reads it).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CliIO } from '../../../common/index.js';
import { DeflowError, writeFileAtomically } from '../../../common/index.js';
import type { KnownBeforeQuote, Quote, RunEventSink, RunOptionsRecord, RunOutcome } from '../../../engine/index.js';
import { createRunDir, readRunMeta, writeRunMeta } from '../../../engine/index.js';
import type { RedisTarget } from '../../../engine/distributed.js';
import { createReporters, EVENT_LOG_NAME, KEPT_REPORT_NAME, type MetricsServer, serveMetrics } from '../../../report/index.js';
import type { JobGraph } from '../../../workflow/index.js';
import { formatResumeCommand } from '../../resume-command.js';
import type { RunSession } from './run-session.js';
import { type ObserverFlags, openRunObservers } from './run-observers.js';
import { VERSION } from '../../version.js';

export interface QueuedRunInput {
  readonly graph: JobGraph;
  readonly session: RunSession;
  readonly stateDir: string;
  readonly queueUrl: string;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly budget: number | null;
  readonly quote: (onEvent?: RunEventSink, known?: KnownBeforeQuote) => Promise<Quote>;
  readonly concurrency: number | undefined;
  /** The options that shaped the run, kept in its `run.json` as a plain run's are (a bare `deflow run` resumes with them). */
  readonly runOptions: RunOptionsRecord;
  /** `--wait-lock`: ms to wait for another coordinator of the workflow (Infinity: as long as it takes; 0: refuse at once). */
  readonly waitLockMs?: number;
  readonly flags: ObserverFlags & {
    readonly metricsPort?: string;
    readonly runId?: string;
    readonly resubmitUnknown?: boolean;
    readonly resubmitTimedOut?: boolean;
    readonly json?: boolean;
    readonly report?: string;
    readonly junit?: string;
    readonly quiet?: boolean;
    readonly color?: boolean;
    readonly cache?: boolean;
    readonly output?: string;
    readonly maxCost?: string;
    readonly html?: string;
  };
}

/** Flags that have no meaning for a coordinator, refused before anything is opened. */
export function checkQueueFlags(flags: { readonly emulator?: boolean; readonly webhookUrl?: string; readonly webhookListen?: string; readonly governor?: string; readonly queue?: string }): void {
  const refuse = (option: string, why: string): never => {
    throw new DeflowError('E_USAGE_OPTION', `${option}: not with --queue (${why})`, { details: { option } });
  };
  if (flags.emulator) refuse('--emulator', 'workers in other processes cannot reach an in-process emulator; start `deflow emulator` and set DEAPI_BASE_URL for the coordinator and the workers');
  if (flags.webhookUrl !== undefined || flags.webhookListen !== undefined) refuse('--webhook-url', 'workers poll the jobs they submit');
  if (flags.governor !== undefined && flags.governor !== flags.queue) refuse('--governor', "a queue run shares the rate limits through the queue's Redis");
}

/** Runs the coordinator; resolves with the outcome and where the report went. */
export async function runQueuedCommand(io: CliIO, input: QueuedRunInput): Promise<QueuedResult> {
  const { graph, session } = input;
  const { shared, scope } = session;
  if (shared === null || scope === null) throw new DeflowError('E_INTERNAL', 'the queue run has no shared governor');
  const queue = await import('../../../engine/distributed.js');
  const target = queue.parseRedisUrl(input.queueUrl, '--queue');
  const { digestWorkflow } = await import('../../../engine/index.js');
  const workflowDigest = await digestWorkflow(graph);
  // One coordinator per workflow state: which run to drive is chosen holding the lock.
  const lock = await queue.acquireCoordinatorLock(shared.redis, queue.accountKeys(scope).coordinator(workflowDigest), {
    subject: `the queue's runs of ${graph.workflow.file} (these inputs) on ${target.display}`,
    waitMs: input.waitLockMs ?? 0,
    onWait: (_holder, message) => io.stderr.write(`deflow: ${message}\n`),
    onLost: () => io.stderr.write(`deflow: lost the coordinator lock on ${target.display} (this process stalled past its lease): another coordinator may be driving the run\n`),
    interrupted: io.interrupted,
  });
  try {
    return await coordinate(io, input, target, workflowDigest);
  } finally {
    await lock.release();
  }
}

type QueuedResult = { outcome: RunOutcome; reportPath: string; resumeCommand: string | null; runId: string; reportError: { error: unknown } | undefined };

async function coordinate(io: CliIO, input: QueuedRunInput, target: RedisTarget, workflowDigest: string): Promise<QueuedResult> {
  const { graph, session, stateDir, flags } = input;
  const { shared, scope } = session;
  if (shared === null || scope === null) throw new DeflowError('E_INTERNAL', 'the queue run has no shared governor');
  const queue = await import('../../../engine/distributed.js');
  const opened = await queue.openQueueRun(shared.redis, scope, { runId: flags.runId, workflowDigest, clock: session.client.clock });
  if (!flags.quiet) io.stderr.write(`${opened.resumed ? 'resuming' : 'starting'} run ${opened.runId} on ${target.display}: start workers with \`deflow worker --queue ${target.display}\`\n`);
  const resumeCommand = formatResumeCommand({
    workflow: graph.workflow.file,
    runId: opened.runId,
    stateDir,
    inputs: input.inputs,
    cwd: io.cwd,
    extra: ['--queue', target.display, ...(flags.output === undefined ? [] : ['--output', flags.output]), ...(flags.maxCost === undefined ? [] : ['--max-cost', flags.maxCost])],
  });
  // The run's state is the queue's; its run.json in the state folder says which run it is, its
  // status and options, so `deflow status`, `deflow report` and a bare `deflow run` find it.
  // On the emulator's accelerated clock the run's dates run ahead of real time: the real ones are
  // kept beside them (the first session's start), as a durable run keeps them.
  const realStartedAt = (await readRunMeta(stateDir, opened.runId))?.real_started_at ?? Date.now();
  const realTimes = (ended: boolean) => (session.client.clock.realPerVirtual >= 1 ? {} : { real_started_at: realStartedAt, real_finished_at: ended ? Date.now() : null });
  const writeMeta = (status: Parameters<typeof writeRunMeta>[1]['status']): void =>
    writeRunMeta(stateDir, {
      v: 1,
      run_id: opened.runId,
      workflow: graph.workflow.file,
      workflow_digest: workflowDigest,
      status,
      started_at: opened.startedAt,
      finished_at: status === 'running' ? null : session.client.clock.now(),
      options: input.runOptions,
      items: Object.fromEntries(graph.steps.map((step) => [step.id, step.itemCount])),
      ...realTimes(status !== 'running'),
    });
  createRunDir(stateDir, opened.runId);
  writeMeta('running');
  const runDir = join(stateDir, 'runs', opened.runId);
  const reportPath = flags.report ?? join(runDir, KEPT_REPORT_NAME);
  // The coordinator sees every event of the run (the workers' progress comes back through the
  // queue), so it keeps the same event log an embedded run keeps: `--html` and `deflow report`
  // draw a queue run's timeline from it.
  const reporters = createReporters(io, {
    keptReportPath: join(runDir, KEPT_REPORT_NAME),
    json: flags.json === true,
    reportPath,
    junitPath: flags.junit,
    eventLogPath: join(runDir, EVENT_LOG_NAME),
    htmlPath: flags.html,
    env: io.env,
    quiet: flags.quiet,
    ...(flags.color === false ? { color: false } : {}),
  });
  let outcome: RunOutcome;
  let reportError: { error: unknown } | undefined;
  const metricsPort = flags.metricsPort === undefined ? undefined : parsePort(flags.metricsPort);
  const observers = await openRunObservers(io, flags, graph, { reportPath, version: VERSION, keepMetrics: metricsPort !== undefined });
  let server: MetricsServer | null = null;
  try {
    if (metricsPort !== undefined && observers.metrics !== null) {
      const metrics = observers.metrics;
      // deflow_queue_depth: each step's jobs waiting in the queue (or deferred there), read from
      // Redis at each scrape; a read that fails leaves the last figures.
      const withDepth = {
        contentType: metrics.contentType,
        text: async () => {
          try {
            const run = await queue.readRun(shared.redis, scope, opened.runId);
            if (run !== undefined) for (const step of (await queue.readQueueStatus(shared.redis, scope, run)).steps) metrics.setQueueDepth(step.step, step.waiting + step.deferred);
          } catch {
            // The figures of the last scrape stand.
          }
          return metrics.text();
        },
      };
      server = await serveMetrics(withDepth, metricsPort);
      if (!flags.quiet) io.stderr.write(`metrics: ${server.url}\n`);
    }
    outcome = await queue.runQueued({
      graph,
      client: session.client,
      stateDir,
      onEvent: (event) => {
        reporters.sink(event);
        observers.sink(event);
      },
      ...(input.budget === null ? {} : { quote: keepQuote(input.quote, join(runDir, 'quote.json')), maxCost: input.budget }),
      concurrency: input.concurrency,
      interrupted: io.interrupted,
      resumeCommand,
      target,
      redis: shared.redis,
      scope,
      opened,
      workflowDigest,
      givenInputs: input.inputs,
      cwd: io.cwd,
      useCache: flags.cache !== false,
      resubmitUnknown: flags.resubmitUnknown === true,
      resubmitTimedOut: flags.resubmitTimedOut === true,
      ...(observers.traceparentOf === undefined ? {} : { traceparentOf: observers.traceparentOf }),
    });
  } finally {
    await reporters.finish().catch((error: unknown) => {
      reportError = { error };
    });
    await observers.finish();
    await server?.close();
  }
  writeMeta(outcome.status);
  return { outcome, reportPath, resumeCommand, runId: opened.runId, reportError };
}

/** The quote, kept beside the run's report the first time (`deflow status` and the HTML report compare with it), as an embedded run keeps it. */
function keepQuote(quote: QueuedRunInput['quote'], file: string): QueuedRunInput['quote'] {
  return async (onEvent, known) => {
    const made = await quote(onEvent, known);
    if (!existsSync(file)) await writeFileAtomically(file, `${JSON.stringify(made)}\n`, { makeFolder: true }).catch(() => {});
    return made;
  };
}

/** `--metrics-port`: 0 (any free port) to 65535. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) {
    throw new DeflowError('E_USAGE_OPTION', `--metrics-port: expected a port number from 0 to 65535, got ${JSON.stringify(value)}`, { details: { option: '--metrics-port' } });
  }
  return port;
}
