/**
 * `runWorkflow`: runs an expanded workflow to the end, or until it must stop (interrupt,
 * budget, daily limit, a refused account), and says how it went. It emits the run's events
 * (run-started, quoted, item-*, run-finished) for the report layer; it never prints.
 */
import { join } from 'node:path';
import type { DeapiClient } from '../client/index.js';
import type { Clock } from '../common/index.js';
import { DeflowError, removeOrphanTemps, roundUsd } from '../common/index.js';
import type { GraphStep, JobGraph } from '../workflow/index.js';
import { createBlobStore } from './cache/index.js';
import { BudgetGuard } from './run/index.js';
import { type CacheLookup, NO_CACHE } from './cache/index.js';
import { ConcurrencyController } from './run/index.js';
import type { BudgetOutcome, DeferredPool, EarlierInvocation, RunEventSink, RunStatus } from './contracts/events.js';
import { DailyDeferrals } from './run/index.js';
import type { JobContext, RunWebhooks } from './run/index.js';
import { createScopeBuilder } from './run/index.js';
import { PollEstimator, type PollEstimatorOptions } from './run/index.js';
import { createDurationReader, type HeldItem, type Quote } from './quote/index.js';
import { loadPollMemory, longestFirst, oncePerPath, savePollMemory } from './run/index.js';
import { ResultStore } from './run/index.js';
import { RunControl } from './run/index.js';
import { decideOutcome } from './run/index.js';
import { type RunCounts, RunState } from './run/index.js';
import { type NodeRunners, Scheduler } from './run/index.js';
import type { SeedNode } from './contracts/seed-node.js';
import { newRunId } from './journal/index.js';
import { NO_RECORDER, type StateRecorder } from './run/index.js';
import { isSubmitGate } from './run/index.js';
import { SubmitWindow } from './run/index.js';
import { watchGovernor } from './run/index.js';
import { earlierSpend, findHeldItems, gateRun, leftOutWithDependents, RunPricer } from './run/index.js';

/** What the run knows before it quotes: items it already has, and items left out at validation with their dependents. */
export interface KnownBeforeQuote {
  readonly held: ReadonlyMap<number, HeldItem>;
  readonly excluded: ReadonlySet<number>;
}

/** Options of {@link runWorkflow}. */
export interface RunWorkflowOptions {
  readonly graph: JobGraph;
  readonly client: DeapiClient;
  /** The state folder; result files go to its `blobs/`. */
  readonly stateDir: string;
  readonly onEvent: RunEventSink;
  /** @default the client's clock */
  readonly clock?: Clock;
  /** @default a new id from the clock */
  readonly runId?: string;
  /** Records every state change durably (the journal). @default records nothing */
  readonly recorder?: StateRecorder;
  /** @default caches nothing */
  readonly cache?: CacheLookup;
  /**
   * Quotes the run before anything is submitted (called with the run's event sink). Needed
   * for a budget; without it items carry no quoted price.
   */
  readonly quote?: (onEvent: RunEventSink, known?: KnownBeforeQuote) => Promise<Quote>;
  /** Budget in USD; overrides the workflow's `budget.max_cost`. */
  readonly maxCost?: number | null | undefined;
  /**
   * `--allow-unpriced`: items the quote could not price do not stop the run; each is priced
   * just before it is sent and held against the cap like any other.
   * @default false
   */
  readonly allowUnpriced?: boolean;
  /** Earlier sessions of this run and what each spent (resume), for reports. */
  readonly earlier?: readonly EarlierInvocation[];
  /** Jobs in flight across the run (`--concurrency`). @default derived per step from the rate limits */
  readonly concurrency?: number | undefined;
  /** Resolves on the first interrupt (SIGINT): submissions stop, jobs in flight settle. */
  readonly interrupted?: Promise<void> | undefined;
  /**
   * How long jobs in flight are still polled after an interrupt (clock ms; Infinity: until they
   * are done, `--drain`); a function is asked when the interrupt comes (a deadline's time left).
   * @default 15000
   */
  readonly graceMs?: number | (() => number);
  /** Node states from an earlier run (resume). */
  readonly seed?: Iterable<SeedNode>;
  readonly resumed?: boolean;
  /** Printed by reports for a run that can be picked up again. */
  readonly resumeCommand?: string | null;
  readonly estimator?: PollEstimatorOptions;
  /** `--webhook-url`: fields added to every submission, and the poll waits a delivery cuts short. */
  readonly webhooks?: RunWebhooks | null;
  /** Submissions between their intent and their answer at once. @default DEFAULT_SUBMIT_WINDOW */
  readonly submitWindow?: number;
  /**
   * `--keep-going`: items left out because their inputs failed the load-time checks (from
   * `validateWorkflow`'s `excluded`), each skipped with its reason; their dependents are skipped.
   */
  readonly excluded?: readonly { readonly step: string; readonly index: number; readonly reason: string }[];
  /** `--wait-daily`: wait for a used-up daily window to refill instead of deferring its pool's items. @default false */
  readonly waitDaily?: boolean;
  /** Daily windows an earlier session found used up (pool → clock ms it refills): nothing is sent to them before. */
  readonly dailyWindows?: ReadonlyMap<string, number>;
}

/** Seams for benchmarks, not part of the public API (src/index.ts does not export this type). */
export interface RunWorkflowInternals extends RunWorkflowOptions {
  /** Replaces the job runner (benchmarks measure the scheduler's own bookkeeping with a no-op; queue mode enqueues). */
  readonly runners?: NodeRunners;
  /**
   * Jobs of a step in flight when the workflow sets no `concurrency` for it, instead of a
   * bound derived from the learned rate limits (queue mode: how far the coordinator enqueues
   * ahead of the workers, which pace themselves). @default derived from the rate limits
   */
  readonly stepLimit?: number;
}

/** How the run ended. */
export interface RunOutcome {
  readonly runId: string;
  readonly status: RunStatus;
  readonly exitCode: number;
  /** `pending` includes `running`: jobs submitted but not finished when the run stopped. */
  readonly counts: Readonly<RunCounts> & { readonly pending: number; readonly running: number };
  /** USD charged by jobs of this run, in every session of it. */
  readonly spent: number;
  /** The part of `spent` charged in earlier sessions. */
  readonly spentEarlier: number;
  /** How the budget went, when the run had one. */
  readonly budget: BudgetOutcome | null;
  /** The quote, when one was made. */
  readonly quote: Quote | null;
  /** What stopped the run, when an error did (a refusal, a daily limit, a recorder failure). */
  readonly error?: unknown;
  /** Pools whose daily window deferred items in this session, with when each refills. */
  readonly deferred: readonly DeferredPool[];
}

const DEFAULT_GRACE_MS = 15_000;

/** Runs `graph` through `client`. Resolves with the outcome; rejects only on a bug. */
export function runWorkflow(options: RunWorkflowOptions): Promise<RunOutcome> {
  return runWorkflowWith(options);
}

/** {@link runWorkflow} with the seams of {@link RunWorkflowInternals}. */
export async function runWorkflowWith(options: RunWorkflowInternals): Promise<RunOutcome> {
  const { graph, client } = options;
  const clock = options.clock ?? client.clock;
  const sink = options.onEvent;
  const runId = options.runId ?? newRunId(clock);
  const recorder = options.recorder ?? NO_RECORDER;
  const startedAt = clock.now();
  sink({
    type: 'run-started',
    ts: startedAt,
    runId,
    workflow: graph.workflow.displayFile,
    workflowName: graph.workflow.name,
    resumed: options.resumed ?? false,
    steps: graph.steps.map((s) => ({ id: s.id, task: s.task.id, items: s.itemCount })),
    earlier: options.earlier ?? [],
    ...(clock.realPerVirtual === 1 ? {} : { timeScale: Math.round(1 / clock.realPerVirtual), realStartedAt: Date.now() }),
  });
  const state = new RunState(graph, sink, recorder, clock);
  const control = new RunControl();
  const grace = new AbortController();
  void options.interrupted?.then(() => {
    control.stop('interrupted');
    const graceMs = (typeof options.graceMs === 'function' ? options.graceMs() : options.graceMs) ?? DEFAULT_GRACE_MS;
    // Polls still due before the end of the grace period happen; the last one just before it.
    control.pollDeadline = clock.now() + graceMs * 0.95;
    // Infinity (`--drain` alone): polled until they are done.
    if (!Number.isFinite(graceMs)) return;
    clock.sleep(graceMs, grace.signal).then(
      () => control.abandonPolls(),
      () => {},
    );
  });
  const maxCost = options.maxCost ?? graph.workflow.budget.maxCost ?? null;
  const allowUnpriced = options.allowUnpriced ?? false;
  const seeds = options.seed ? [...options.seed] : [];
  const earlier = earlierSpend(graph, seeds);
  const budget = new BudgetGuard(maxCost, earlier.spent);
  const pricer = new RunPricer(graph);
  let quote: Quote | null = null;
  let gate: { verdict: string; reason: string } | null = null;
  const run = { id: runId, started_at: new Date(startedAt).toISOString() };
  const blobs = createBlobStore(join(options.stateDir, 'blobs'));
  if (options.quote) {
    // Inputs left out (--keep-going) are not quoted; what the run already has (the journal, the result cache) is priced at $0.
    const excluded = leftOutWithDependents(graph, (options.excluded ?? []).map((e) => graph.nodeIndex(e.step, e.index)));
    const held = await findHeldItems({ graph, cache: options.cache ?? null, blobs, run, seeds, excluded });
    quote = await options.quote(sink, { held, excluded });
    pricer.applyQuote(quote);
    state.quoted.set(pricer.point);
    const outcome = gateRun(graph, quote, { maxCost, allowUnpriced, spent: earlier.spent, done: earlier.done });
    if (maxCost !== null || outcome.verdict === 'over-balance') gate = { verdict: outcome.verdict, reason: outcome.reason };
    if (outcome.verdict === 'unavailable') {
      // Without a budget the quote only checks the balance: prices that cannot be had do not stop the run.
      if (maxCost !== null) control.stop('fatal', new DeflowError('E_QUOTE_UNAVAILABLE', `cannot check the budget: ${outcome.reason}; nothing was submitted`));
      else sink({ type: 'warning', ts: clock.now(), message: `the balance could not be compared with the quote: ${outcome.reason}` });
    } else if (outcome.verdict === 'over-budget' || outcome.verdict === 'unpriced') control.stop('over-budget');
    else if (outcome.verdict === 'over-balance') control.stop('refused', new DeflowError('E_BALANCE_LOW', `refused to start, nothing was submitted: ${outcome.reason}`));
  }
  const governor = client.governor;
  // The job runner defers a used-up pool and says so (daily-deferrals.ts); a queue's runners leave that to the governor's news.
  const unwatch = governor ? watchGovernor(governor, clock, sink, { daily: options.runners !== undefined }) : () => {};
  // Temp files a killed run left behind (an hour old: a live run's are fresh): removed beside
  // the run and awaited before it ends, so a short run cannot leave them behind.
  const cleaning = blobs.cleanStale(60 * 60_000).catch(() => 0);
  // Temporary files of the atomic writer whose writer was killed (they name it): removed before
  // this run writes anything. A live writer's (another process saving now) stay.
  await removeOrphanTemps([options.stateDir, graph.outputDir]).catch(() => []);
  // What earlier runs of this state folder learned of job durations places the first polls.
  const estimator = new PollEstimator(options.estimator);
  const durations = oncePerPath(createDurationReader());
  if (options.runners === undefined) await loadPollMemory(options.stateDir, estimator);
  const ctx: JobContext = {
    graph,
    client,
    gate: isSubmitGate(governor) ? governor : null,
    clock,
    state,
    estimator,
    budget,
    pricer,
    blobs,
    cache: options.cache ?? NO_CACHE,
    results: new ResultStore(),
    scope: createScopeBuilder(graph, run),
    control,
    needsContent: (step: GraphStep) => step.downstream.length > 0 || step.def.save !== undefined,
    stepKeys: new Map(),
    window: new SubmitWindow(options.submitWindow),
    webhooks: options.webhooks ?? null,
    daily: new DailyDeferrals({ clock, sink, windows: options.dailyWindows, wait: options.waitDaily ?? false }),
    durations,
  };
  const concurrency =
    options.stepLimit === undefined
      ? new ConcurrencyController(governor, { global: options.concurrency })
      : new ConcurrencyController(null, { global: options.concurrency, unthrottled: options.stepLimit });
  const scheduler = new Scheduler(ctx, concurrency, ctx.stepKeys, options.runners);
  try {
    const invalid = (options.excluded ?? []).map((e) => ({ state: 'invalid' as const, step: e.step, k: e.index, reason: e.reason }));
    if (seeds.length + invalid.length > 0) await scheduler.seed([...seeds, ...invalid]);
    // Longest input first (the longest-processing-time rule) where the items' sizes differ.
    if (options.runners === undefined && !control.stopping) await scheduler.orderRoots((step) => longestFirst({ graph, scope: ctx.scope, blobs, durations }, step));
    await scheduler.run();
  } finally {
    grace.abort();
    unwatch();
    concurrency.close();
    await cleaning;
    // Lost on a full disk or a read-only folder: the next run searches again, nothing else.
    if (options.runners === undefined) await savePollMemory(options.stateDir, estimator).catch(() => {});
  }
  let verdict = decideOutcome(control.reason, state.counts, state.accepted);
  let error = control.error;
  try {
    state.checkRecorder();
    await recorder.finished(verdict.status);
  } catch (recorderError) {
    error ??= recorderError;
    verdict = decideOutcome('fatal', state.counts, state.accepted);
  }
  const counts = { ...state.counts, pending: state.pending };
  const deferred = ctx.daily?.summary() ?? [];
  const running = state.running;
  // An over-budget run is resumable too, but with a higher cap: the CLI says how.
  const resumable = verdict.status === 'interrupted' || verdict.status === 'daily-limit';
  const budgetOutcome: BudgetOutcome | null =
    maxCost === null && gate === null
      ? null
      : { maxCost, allowUnpriced, verdict: gate?.verdict ?? null, reason: gate?.reason ?? null, refused: budget.refusal === null ? null : roundRefusal(budget.refusal) };
  sink({
    type: 'run-finished',
    ts: clock.now(),
    runId,
    status: verdict.status,
    exitCode: verdict.exitCode,
    counts: { total: graph.nodeCount, ...counts },
    spent: roundUsd(budget.spent),
    spentEarlier: roundUsd(earlier.spent),
    quoted: quote === null ? null : roundUsd(quote.total.point),
    quotedHigh: quote === null ? null : roundUsd(quote.total.high),
    budget: budgetOutcome,
    resumeCommand: resumable ? (options.resumeCommand ?? null) : null,
    deferred,
  });
  return {
    runId,
    status: verdict.status,
    exitCode: verdict.exitCode,
    counts: { ...counts, running },
    spent: roundUsd(budget.spent),
    spentEarlier: roundUsd(earlier.spent),
    budget: budgetOutcome,
    quote,
    deferred,
    ...(error === undefined ? {} : { error }),
  };
}

function roundRefusal(refusal: NonNullable<BudgetGuard['refusal']>): NonNullable<BudgetOutcome['refused']> {
  return { ...refusal, amount: roundUsd(refusal.amount), spent: roundUsd(refusal.spent), reserved: roundUsd(refusal.reserved) };
}

