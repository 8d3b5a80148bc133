/**
 * `runDurably`: {@link runWorkflow} with a journal and the result cache: the run is written to
 * the state folder as it goes, picks up where an earlier session of it stopped, and reuses
 * results of identical jobs from earlier runs. `deflow run` opens the run first (it needs the
 * run id for its report) and then calls {@link runOpened}.
 */
import { join } from 'node:path';
import type { Clock } from '../common/index.js';
import { createBlobStore } from './cache/index.js';
import { CacheAdapter } from './cache/index.js';
import { NO_CACHE } from './cache/index.js';
import { type DurableRun, type OpenDurableRunInternals, openDurableRunWith } from './journal/index.js';
import { createResultCache } from './cache/index.js';
import { type RunOutcome, type RunWorkflowOptions, runWorkflow } from './run-workflow.js';
import { stateLayout } from './journal/index.js';
import type { WebhookHint } from './webhooks/index.js';
import { DeliveryDrain } from './webhooks/index.js';
import { findRunWebhookSecret, readRunWebhookSecret, startWebhookHints, type WebhookHints } from './webhooks/index.js';
import { runPaths } from './journal/index.js';
import type { RunWebhooks } from './run/index.js';

/** How long a submission whose answer was lost waits for a delivery naming its item, by default (clock ms). */
export const DEFAULT_ADOPT_WAIT_MS = 120_000;
/** How long a session stopped by its budget or a daily limit waits for the deliveries of its jobs in flight, by default (clock ms; Ctrl-C's grace). */
const DEFAULT_DRAIN_MS = 15_000;
/** After Ctrl-C with `--drain` alone: how long the final deliveries of jobs polled to their end are still awaited (clock ms). */
const INTERRUPTED_FINALS_MS = 10 * 60_000;

/** Options of {@link runOpened}: those of `runWorkflow` that the journal does not decide. */
export interface RunOpenedOptions extends Omit<RunWorkflowOptions, 'recorder' | 'cache' | 'seed' | 'resumed' | 'runId' | 'resumeCommand' | 'webhooks' | 'earlier' | 'dailyWindows'> {
  /** `--no-cache` passes false. @default true */
  readonly useCache?: boolean;
  /** The command that resumes the run, for reports. */
  readonly resumeCommand?: string | null;
  /** `--webhook-url` and `--webhook-listen`. */
  readonly webhook?: { readonly url: string; readonly listen: string } | undefined;
  /** Every verified webhook delivery (logs, tests). */
  readonly onWebhookHint?: (hint: WebhookHint) => void;
  /** What the user should know (a webhook URL that failed its self-check). */
  readonly onNotice?: (message: string) => void;
  /**
   * With webhooks: how long (clock ms) a submission whose answer was lost waits for a delivery
   * naming its item before it is left `unknown`. @default {@link DEFAULT_ADOPT_WAIT_MS}
   */
  readonly adoptWaitMs?: number;
}

export interface RunDurablyOptions extends RunOpenedOptions {
  /** `--run-id`: resume this run, or start a new run under this name. */
  readonly runId?: string | undefined;
  /** `--resubmit-unknown`: submit unknown items again (they may be paid twice). @default false */
  readonly resubmitUnknown?: boolean;
  /** `--resubmit-timed-out`: submit items whose job timed out again instead of polling it (they may be paid twice). @default false */
  readonly resubmitTimedOut?: boolean;
  /** Called once the journal is open and before anything is submitted. */
  readonly onOpened?: (run: DurableRun) => void;
  /** How long (ms, or Infinity) to wait when another session holds the state folder. @default 0 (`E_STATE_LOCKED` at once) */
  readonly waitLockMs?: number;
}

/** Seams for tests, not part of the public API (src/index.ts does not export this type). */
export interface RunDurablyInternals extends RunDurablyOptions {
  readonly journalHooks?: OpenDurableRunInternals['journalHooks'];
}

export interface DurableOutcome extends RunOutcome {
  readonly resumed: boolean;
  /** Jobs served from the cache in this session. */
  readonly cacheHits: number;
  /** USD those hits would have cost. */
  readonly cacheSaved: number;
  /** Verified webhook deliveries, and poll waits they cut short. */
  /**
   * Verified deliveries received; poll waits they cut short; of those, the ones whose delivery was
   * taken as the job's final status; items whose lost submission answer a delivery stood in for.
   */
  readonly webhooks: { readonly received: number; readonly woken: number; readonly delivered: number; readonly adopted: number } | null;
}

/** Opens the run's journal (new or resumed), runs it and closes the journal. */
export function runDurably(options: RunDurablyOptions): Promise<DurableOutcome> {
  return runDurablyWith(options);
}

/** {@link runDurably} with the test seams of {@link RunDurablyInternals}. */
export async function runDurablyWith(options: RunDurablyInternals): Promise<DurableOutcome> {
  const { runId, resubmitUnknown, resubmitTimedOut, onOpened, journalHooks, waitLockMs, ...rest } = options;
  const durable = await openDurableRunWith({
    stateDir: options.stateDir,
    graph: options.graph,
    clock: options.clock ?? options.client.clock,
    runId,
    resubmitUnknown: resubmitUnknown ?? false,
    resubmitTimedOut: resubmitTimedOut ?? false,
    ...(waitLockMs === undefined ? {} : { waitLockMs }),
    ...(options.interrupted === undefined ? {} : { interrupted: options.interrupted }),
    ...(journalHooks === undefined ? {} : { journalHooks }),
  });
  try {
    onOpened?.(durable);
  } catch (error) {
    await durable.close('running');
    throw error;
  }
  return runOpened(durable, rest);
}

/** Why a session stopped with jobs in flight, as its notice says it. */
const STOPPED_BY: Partial<Record<DurableOutcome['status'], string>> = { 'over-budget': 'the budget stopped it', 'daily-limit': 'a daily limit stopped it' };

/**
 * A session that stopped for a reason other than Ctrl-C (which says its own, cli/drain.ts) with
 * jobs given its webhook URL whose final delivery has not come: says how many deliveries would
 * fail, and keeps its receiver up for them (as long as Ctrl-C's drain, `graceMs`), so that they
 * reach it instead of counting toward the account's breaker (docs/running.md).
 */
async function drainDeliveries(drain: DeliveryDrain, status: DurableOutcome['status'], options: RunOpenedOptions, clock: Clock): Promise<void> {
  if (status === 'interrupted' && options.graceMs === Number.POSITIVE_INFINITY) {
    // Ctrl-C with `--drain` (its notice said so): its jobs were polled to their end; a final
    // delivery may still be on its way after the poll that saw the job done.
    await drain.settle(INTERRUPTED_FINALS_MS, clock);
    return;
  }
  const why = STOPPED_BY[status];
  if (why === undefined || drain.outstanding === 0) return;
  const count = drain.outstanding;
  const boundMs = (typeof options.graceMs === 'function' ? options.graceMs() : options.graceMs) ?? DEFAULT_DRAIN_MS;
  const jobs = `${count} job${count === 1 ? '' : 's'} given this session's webhook URL ${count === 1 ? 'has' : 'have'} not had ${count === 1 ? 'its' : 'their'} final delivery yet`;
  options.onNotice?.(
    `${why} with ${jobs}: up to ${2 * count} deliveries would fail once its receiver closes (10 failed in a row switch off the account's webhooks); waiting ${Number.isFinite(boundMs) ? `up to ${Math.round(boundMs / 1000)} s ` : ''}for them (--drain sets how long; Ctrl-C stops now)`,
  );
  const stop = new AbortController();
  void options.interrupted?.then(() => stop.abort());
  const left = await drain.settle(boundMs, clock, stop.signal);
  if (left > 0) options.onNotice?.(`${left} job${left === 1 ? '' : 's'} given this session's webhook URL still had no final delivery when it ended: their deliveries fail until a session answers at the same --webhook-url`);
}

/**
 * Runs an opened durable run to its end and closes its journal (also on an error, which
 * leaves the run marked `running` with its lock released: resumable).
 */
export async function runOpened(durable: DurableRun, options: RunOpenedOptions): Promise<DurableOutcome> {
  const { graph, stateDir } = options;
  const clock = options.clock ?? options.client.clock;
  let status: Parameters<DurableRun['close']>[0] = 'running';
  let hints: WebhookHints | undefined;
  let adopted = 0;
  const drain = new DeliveryDrain();
  try {
    const blobs = createBlobStore(join(stateDir, 'blobs'));
    const cache =
      options.useCache === false
        ? null
        : new CacheAdapter({ graph, cache: createResultCache({ dir: stateLayout(stateDir).cacheDir, blobs }), blobs, clock, knownKeys: durable.plan?.cacheKeys ?? new Map() });
    if (options.webhook !== undefined) {
      hints = await startWebhookHints({
        ...options.webhook,
        secret: readRunWebhookSecret(durable.paths.dir),
        clock,
        onHint: (hint) => {
          drain.delivered(hint.requestId, hint.status);
          options.onWebhookHint?.(hint);
        },
        adoption: { stateDir, runId: durable.runId, secretOf: (runId) => findRunWebhookSecret(runPaths(stateDir, runId).dir) },
      });
      const unreachable = await hints.selfCheck();
      if (unreachable !== null) {
        await hints.close();
        hints = undefined;
        options.onNotice?.(`--webhook-url ${options.webhook.url}: a signed test delivery did not reach the receiver at ${options.webhook.listen} (${unreachable}); this session polls instead and gives no job that URL`);
      }
    }
    let webhooks: RunWebhooks | null = null;
    if (hints !== undefined) {
      const { desk, fieldsFor } = hints;
      const waitMs = options.adoptWaitMs ?? DEFAULT_ADOPT_WAIT_MS;
      webhooks = {
        fields: hints.fields,
        wakeups: hints.wakeups,
        fieldsFor: (node, attempt) => fieldsFor(durable.recorder.name(node), attempt),
        adopt: async (node, from, signal) => {
          const found = await desk!.wait(from.run ?? durable.runId, durable.recorder.name(node), from.attempt ?? null, waitMs, clock, signal);
          if (found !== null) {
            adopted++;
            drain.given(found.requestId);
          }
          return found;
        },
        answered: (requestId) => {
          drain.given(requestId);
          desk!.answered(requestId);
        },
      };
    }
    const { useCache: _useCache, webhook: _webhook, onWebhookHint: _onHint, resumeCommand, adoptWaitMs: _adoptWaitMs, onNotice: _onNotice, ...rest } = options;
    const outcome = await runWorkflow({
      ...rest,
      runId: durable.runId,
      recorder: durable.recorder,
      cache: cache ?? NO_CACHE,
      seed: durable.seeds,
      resumed: durable.resumed,
      earlier: durable.earlier,
      ...(durable.plan === null ? {} : { dailyWindows: durable.plan.dailyWindows }),
      resumeCommand: resumeCommand ?? null,
      webhooks,
    });
    status = outcome.status;
    if (hints !== undefined) await drainDeliveries(drain, outcome.status, options, clock);
    return {
      ...outcome,
      resumed: durable.resumed,
      cacheHits: cache?.hits ?? 0,
      cacheSaved: cache?.saved ?? 0,
      webhooks: hints === undefined ? null : { received: hints.received(), woken: hints.wakeups.woken, delivered: hints.wakeups.delivered, adopted },
    };
  } finally {
    await hints?.close();
    await durable.close(status);
  }
}
