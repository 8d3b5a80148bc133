/** What `deflow run` does (run.ts defines the command and its exit codes). */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DeflowError, writeFileAtomically } from '../../../common/index.js';
import type { KnownBeforeQuote, RunEventSink } from '../../../engine/index.js';
import { findHeldItems, leftOutWithDependents, openResultCacheLookup, previewResumeSeeds } from '../../../engine/index.js';
import { quoteRun } from '../../../engine/index.js';
import { openQuoteCache } from '../../../engine/index.js';
import { quoteInputFromGraph } from '../../../engine/index.js';
import { clientPriceSource } from '../../../engine/index.js';
import type { Quote } from '../../../engine/index.js';
import { openDurableRun } from '../../../engine/index.js';
import { runOpened } from '../../../engine/index.js';
import type { RunOutcome } from '../../../engine/index.js';
import { assertRunId, resolveStateDir, stateLayout } from '../../../engine/index.js';
import { KEPT_REPORT_NAME } from '../../../report/index.js';
import { reportFailure } from './report-failure.js';
import { createReporters, EVENT_LOG_NAME } from '../../../report/index.js';
import { formatErrors, formatWarnings } from '../../../workflow/index.js';
import { JobGraph } from '../../../workflow/index.js';
import { validateWorkflow } from '../../../workflow/index.js';
import type { CliIO } from '../../../common/index.js';
import { parseWaitLock } from '../../wait-lock.js';
import { drainNotice, JobsInFlight, parseDrain } from '../../drain.js';
import { EXIT } from '../../../common/index.js';
import { formatResumeCommand } from '../../resume-command.js';
import { checkQueueFlags, runQueuedCommand } from './run-queued.js';
import { deferredLines, excludedLines } from '../plan/run-notes.js';
import { checkAccount } from './account-check.js';
import { openRunSession } from './run-session.js';
import { recallRunOptions, recordRunOptions } from './run-recall.js';
import { checkObserverFlags, openRunObservers } from './run-observers.js';
import type { RunFlags } from './run-flags.js';
import { describeOpened, dryRun, printSummary, suggestCap } from './run-summary.js';
import { readInputFlagsOrSay } from '../plan/input-flags.js';
import { VERSION } from '../../version.js';

export async function runCommand(file: string, given: RunFlags, io: CliIO): Promise<number> {
  // A plain `deflow run` that resumes a run uses the options it journalled (--run-id too; a flag given again overrides).
  const recalled = await recallRunOptions(file, given, io);
  const flags = recalled.flags;
  if (recalled.lines.length > 0) io.stderr.write(`${recalled.lines.join('\n')}\n`);
  const concurrency = flags.concurrency === undefined ? undefined : parseNumber('--concurrency', flags.concurrency, 1, true);
  const maxCost = flags.maxCost === undefined ? undefined : parseNumber('--max-cost', flags.maxCost, 0);
  const webhook = parseWebhookFlags(flags);
  const waitLockMs = parseWaitLock(flags.waitLock);
  const drainMs = parseDrain(flags.drain, io.env);
  if (flags.runId !== undefined) assertRunId(flags.runId);
  const inputs = await readInputFlagsOrSay(flags, io);
  if (inputs === undefined) return EXIT.usage;
  if (flags.queue !== undefined) checkQueueFlags(flags);
  checkObserverFlags(flags);
  if (flags.metricsPort !== undefined && flags.queue === undefined) {
    throw new DeflowError('E_USAGE_OPTION', '--metrics-port: only with --queue (a one-process run pushes its final figures with --pushgateway or writes them with --metrics-file)', { details: { option: '--metrics-port' } });
  }
  const session = await openRunSession(flags.queue === undefined ? flags : { ...flags, governor: flags.queue, governorOption: '--queue' }, io);
  try {
    const { client } = session;
    const stateDir = resolveStateDir({ workflowPath: file, stateDir: flags.stateDir, cwd: io.cwd });
    const validation = await validateWorkflow(file, {
      inputs,
      cwd: io.cwd,
      offline: flags.offline === true,
      modelCacheFile: stateLayout(stateDir).modelsFile,
      ...(flags.offline ? {} : { fetchModels: () => client.listModels() }),
      keepGoing: flags.keepGoing === true ? true : 'workflow',
    });
    const problems = [...formatErrors(validation.errors), ...excludedLines(validation.excluded), ...formatWarnings(validation.warnings)];
    if (problems.length > 0) io.stderr.write(`${problems.join('\n')}\n`);
    if (!validation.ok || !validation.graph) return EXIT.usage;
    const graph = flags.output === undefined ? validation.graph : withOutputDir(validation.graph, resolve(io.cwd, flags.output));
    const budget = maxCost ?? graph.workflow.budget.maxCost ?? null;
    // One authenticated call before anything else (a broken key fails even an all-cached run);
    // its balance is the one the quote compares with what the run is about to pay.
    const balance = flags.offline ? null : await checkAccount(client);
    const source = clientPriceSource(client);
    const prices = balance === null ? source : { price: source.price.bind(source), balance: () => Promise.resolve(balance) };
    const excludedIds = leftOutWithDependents(graph, validation.excluded.map((e) => graph.nodeIndex(e.item!.step, e.item!.index)));
    // `--dry-run` prices what the run would: the journal of the run it would resume (done and paid items, as
    // `deflow quote` does), the result cache (unless --no-cache) and no inputs left out.
    const knownForDryRun = async (): Promise<KnownBeforeQuote> => {
      const lookup = openResultCacheLookup({ graph, stateDir, clock: client.clock });
      const seeds = session.emulator !== null ? [] : await previewResumeSeeds({ stateDir, graph });
      const run = { id: 'quote', started_at: new Date(client.clock.now()).toISOString() };
      return { excluded: excludedIds, held: await findHeldItems({ graph, ...(flags.cache === false ? { cache: null, blobs: lookup.blobs } : lookup), run, seeds, excluded: excludedIds }) };
    };
    const quote = async (onEvent?: RunEventSink, known?: KnownBeforeQuote): Promise<Quote> =>
      quoteRun(quoteInputFromGraph(graph, { runStartedAt: new Date(client.clock.now()).toISOString(), ...(known ?? (await knownForDryRun())) }), {
        prices,
        clock: client.clock,
        cache: await openQuoteCache({ stateDir, scope: client.baseUrl, clock: client.clock }),
        maxCost: budget,
        allowUnpriced: flags.allowUnpriced === true,
        onEvent,
      });
    if (flags.dryRun) return await dryRun(io, flags, graph, await quote(), validation.plan);
    if (flags.queue !== undefined) {
      const queued = await runQueuedCommand(io, { graph, session, stateDir, queueUrl: flags.queue, inputs: inputs.values, budget, quote, concurrency, flags, waitLockMs, runOptions: recordRunOptions(flags, io, stateDir, maxCost) });
      printSummary(io, { ...flags, report: queued.reportPath }, graph, queued.outcome, session);
      const { status } = queued.outcome;
      if (flags.quiet && queued.resumeCommand !== null && (status === 'interrupted' || status === 'daily-limit')) io.stderr.write(`resume with: ${queued.resumeCommand}\n`);
      if (queued.reportError !== undefined) return reportFailure(io, queued.reportError.error, queued.outcome.exitCode, { runId: queued.runId, stateDir, flags: { report: flags.report, junit: flags.junit } });
      return queued.outcome.exitCode;
    }

    // An in-process emulator (--emulator) dies with the process, and with it the jobs of any earlier session.
    const fresh = session.emulator !== null && flags.runId === undefined;
    // Decided holding the state folder's lock: a second `deflow run` here is refused (exit 2), or waits with --wait-lock.
    const durable = await openDurableRun({
      stateDir,
      graph,
      clock: client.clock,
      runId: flags.runId,
      resubmitUnknown: flags.resubmitUnknown === true,
      resubmitTimedOut: flags.resubmitTimedOut === true,
      fresh,
      runOptions: recordRunOptions(flags, io, stateDir, maxCost),
      waitLockMs,
      onLockWait: (message) => io.stderr.write(`deflow: ${message}\n`),
      interrupted: io.interrupted,
    });
    if (!flags.quiet) io.stderr.write(describeOpened(durable));
    /** The command that resumes this run with the same output folder and inputs, and `cap` (with `--allow-unpriced` when `unpriced`). */
    const resumeWith = (cap: number | undefined, unpriced: boolean): string =>
      formatResumeCommand({
        workflow: graph.workflow.file,
        runId: durable.runId,
        stateDir,
        inputs: inputs.values,
        cwd: io.cwd,
        extra: [
          ...(flags.output === undefined ? [] : ['--output', flags.output]),
          ...(cap === undefined ? [] : ['--max-cost', String(cap)]),
          ...(unpriced ? ['--allow-unpriced'] : []),
          ...(flags.keepGoing ? ['--keep-going'] : []),
        ],
      });
    const resumeCommand = fresh ? null : resumeWith(maxCost, flags.allowUnpriced === true);
    // The run's quote stays beside its journal, so `deflow status` can show quoted against actual: the first
    // session's (a resumed session prices what it already has at $0, and what it pays is part of that first quote).
    const quoteFile = join(durable.paths.dir, 'quote.json');
    const quoteAndKeep = async (onEvent: RunEventSink, known?: KnownBeforeQuote): Promise<Quote> => {
      const made = await quote(onEvent, known);
      if (!existsSync(quoteFile)) await writeFileAtomically(quoteFile, `${JSON.stringify(made)}\n`, { makeFolder: true }).catch(() => {});
      return made;
    };
    // Every run leaves its report on disk: --report, else the run's folder in the state folder.
    const reportPath = flags.report ?? join(durable.paths.dir, KEPT_REPORT_NAME);
    const keptReportPath = join(durable.paths.dir, KEPT_REPORT_NAME);
    const reporters = createReporters(io, {
      keptReportPath,
      json: flags.json === true,
      reportPath,
      junitPath: flags.junit,
      eventLogPath: join(durable.paths.dir, EVENT_LOG_NAME),
      htmlPath: flags.html,
      env: io.env,
      quiet: flags.quiet,
      ...(flags.color === false ? { color: false } : {}),
    });
    const observers = await openRunObservers(io, flags, graph, { reportPath, version: VERSION });
    let outcome: RunOutcome;
    let reportError: { error: unknown } | undefined;
    const hooked = webhook === undefined ? null : new JobsInFlight();
    if (hooked !== null) void io.interrupted?.then(() => io.stderr.write(drainNotice(hooked.count, typeof drainMs === 'function' ? drainMs() : drainMs)));
    try {
      outcome = await runOpened(durable, {
        graph,
        client,
        stateDir,
        onEvent: (event) => {
          hooked?.see(event);
          reporters.sink(event);
          observers.sink(event);
        },
        ...(webhook === undefined ? {} : { graceMs: drainMs }),
        // Quoted whenever the account was checked: the balance must cover the high end of what the run is about to pay.
        ...(budget === null && balance === null ? {} : { quote: quoteAndKeep, maxCost: budget, allowUnpriced: flags.allowUnpriced === true }),
        concurrency,
        interrupted: io.interrupted,
        useCache: flags.cache !== false,
        resumeCommand,
        webhook,
        onNotice: (message) => io.stderr.write(`deflow: ${message}\n`),
        excluded: validation.excluded.map((e) => ({ step: e.item!.step, index: e.item!.index, reason: e.message })),
        waitDaily: flags.waitDaily === true,
      });
    } finally {
      await reporters.finish().catch((error: unknown) => {
        reportError = { error };
      });
      await observers.finish();
    }
    printSummary(io, { ...flags, report: reportPath }, graph, outcome, session);
    const deferred = deferredLines(outcome.deferred, client.clock.now(), resumeCommand, client.clock.realPerVirtual !== 1);
    if (deferred.length > 0) io.stderr.write(`${deferred.join('\n')}\n`);
    if (outcome.status === 'over-budget' && !fresh) {
      const unpriced = outcome.budget?.verdict === 'unpriced' && outcome.budget.refused === null;
      const command = resumeWith(unpriced ? (outcome.budget?.maxCost ?? 0) : suggestCap(outcome), flags.allowUnpriced === true || unpriced);
      io.stderr.write(`${unpriced ? 'run the unpriced items under per-job reservations' : 'resume with a higher cap'}: ${command}\n`);
    }
    // The renderers print it too, unless --quiet silenced them: a resumable run must say how.
    if (flags.quiet && resumeCommand !== null && (outcome.status === 'interrupted' || outcome.status === 'daily-limit')) io.stderr.write(`resume with: ${resumeCommand}\n`);
    if (reportError !== undefined) return reportFailure(io, reportError.error, outcome.exitCode, { runId: durable.runId, stateDir, flags });
    return outcome.exitCode;
  } finally {
    await session.close();
  }
}

/** `--webhook-url` and `--webhook-listen` go together. */
function parseWebhookFlags(flags: RunFlags): { url: string; listen: string } | undefined {
  if (flags.webhookUrl === undefined && flags.webhookListen === undefined) return undefined;
  if (flags.webhookUrl === undefined || flags.webhookListen === undefined) {
    const [given, missing] = flags.webhookUrl === undefined ? ['--webhook-listen', '--webhook-url'] : ['--webhook-url', '--webhook-listen'];
    throw new DeflowError('E_USAGE_OPTION', `${given}: expected ${missing} as well (the service calls the URL, the receiver listens at the address)`, { details: { option: given } });
  }
  return { url: flags.webhookUrl, listen: flags.webhookListen };
}

/** The same graph with `save` paths under another folder (`--output`). */
function withOutputDir(graph: JobGraph, outputDir: string): JobGraph {
  return new JobGraph({ workflow: graph.workflow, inputs: graph.inputs, outputDir, models: graph.models, steps: graph.steps, edges: graph.edges });
}

function parseNumber(option: string, value: string, min: number, integer = false): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < min || (integer && !Number.isInteger(number))) {
    throw new DeflowError('E_USAGE_OPTION', `${option}: expected ${integer ? 'a whole number' : 'a number'} ≥ ${min}, got ${JSON.stringify(value)}`, {
      details: { option },
    });
  }
  return number;
}
