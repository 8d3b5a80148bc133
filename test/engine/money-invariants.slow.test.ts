/**
 * Money invariants, as properties (fast-check) on the discrete-event clock (issue 25, point 8):
 * random workflows of 1–4 steps run in order (`needs`), 1–200 items in all (mostly small steps,
 * a large one now and then), random prices (image sizes and step counts), jobs that may be
 * slower than their step's `timeout` (with 0–2 retries), one fault on one phase of the first
 * session (a reset or a cut answer after the service acted: on submissions, polls or
 * downloads), a random kill point (the journal fails after its n-th record, as a crash would
 * leave it), in a quarter of the cases a second session started together with the first on the
 * same state folder (refused, or waiting for the lock and then resuming), in a quarter a daily
 * cap on the emulator (deferrals, then a session a day later), in a third `budget.max_cost`, in
 * a quarter the emulator's own faults in every session (500s before anything is created, and
 * submissions accepted whose answer is lost).
 * Then the run is run again, clean, until it has nothing left to collect. The service (the
 * emulator's job list) is the judge:
 *
 * 1. no item has two jobs charged (done) at the service: no flag to resubmit is ever passed;
 * 2. every item ends done, failed with a code, skipped, unknown, or timed-out with its
 *    request_id (never a bare failure without a code, never a timed-out item without its job);
 * 3. the spend the run states equals what the service charged for the jobs deflow knows (every
 *    job whose request_id it journalled), to the micro-dollar, once nothing is left in flight;
 * 4. with `max_cost`, the run's jobs never cost more than the cap, nor does a session state more;
 * 5. with a daily cap, an item deferred is taken up again by the first session after its day
 *    refilled (submitted, deferred again, or ended with an outcome), never forgotten;
 * 6. with a daily cap, a session started before the day refilled, by a new client (a new
 *    process: only the journal knows the window is closed), creates no job and sends nothing the
 *    service refuses (no 429). Red when the resume forgets the journalled window (the session
 *    resubmits into it) or replays a deferred item as skipped, both at the first case.
 *
 * `MONEY_RUNS` cases (200 by default: about 1 s a case, 3 minutes; `npm run fuzz:money` runs
 * 5,000), seed `MONEY_SEED`; `MONEY_VERBOSE=1` prints each case. The state folder is on
 * /dev/shm where there is one: on disk the journal's fsyncs took half of a case's time.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeapiClient } from '../../src/client/deapi-client.js';
import { startEmulator } from '../../src/emulator/start-emulator.js';
import type { RunEvent } from '../../src/engine/contracts/events.js';
import { readJournal } from '../../src/engine/journal/journal-replay.js';
import { runPaths } from '../../src/engine/journal/state-dir.js';
import { quoteRun } from '../../src/engine/quote/quote.js';
import { quoteInputFromGraph } from '../../src/engine/quote/quote-input-from-graph.js';
import { clientPriceSource } from '../../src/engine/quote/quote-price-source.js';
import { addMicros, toMicros } from '../../src/common/money.js';
import { GatedGovernor } from '../../src/engine/run/submit-gate.js';
import { runDurablyWith } from '../../src/engine/run-durably.js';
import { createEventClock } from '../helpers/event-clock.js';
import { type Fault, startFaultProxy } from '../helpers/fault-proxy.js';
import { type MoneyStep, moneyWorkflow } from '../fixtures/money-workflow.js';
import { graphOf } from './run-helpers.js';

const RUNS = Number(process.env['MONEY_RUNS'] ?? 200);
const SEED = Number(process.env['MONEY_SEED'] ?? 20261127);
/** Clean sessions after the faulty one, at most. */
const MAX_SESSIONS = 6;
/** Days waited for a daily window to refill, at most (each adds a session). */
const MAX_DAYS = 8;
const RUN_ID = 'money';
/** A tmpfs where there is one: the journal's fsyncs cost nothing there (they were half a case's time on disk). */
const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

interface MoneyCase {
  readonly steps: readonly MoneyStep[];
  /** Job duration, ms (fixed for every job; ±30 % jitter). */
  readonly durationMs: number;
  readonly fault: { readonly fault: Fault; readonly phase: 'submit' | 'poll' | 'download'; readonly rate: number; readonly seed: number } | null;
  /** The first session's journal fails after this many records (0: no crash). */
  readonly crashAfter: number;
  /** A second session started together with the first on the same state folder (one waits for the lock when `waitLock`). */
  readonly twin: { readonly waitLock: boolean } | null;
  /** The emulator's daily cap (requests a day) on image generations: deferrals, then a later session a day on. */
  readonly daily: number | null;
  /** `budget.max_cost` in USD (the run quotes first and holds each submission's price). */
  readonly maxCost: number | null;
  /** The emulator's own faults, in every session: 500s before anything is created, submissions accepted and their answer lost. */
  readonly service: { readonly error500: number; readonly dropAnswer: number } | null;
}

/** `arb` in `yes` of `yes + no` cases, null otherwise. */
function sometimes<T>(arb: fc.Arbitrary<T>, yes: number, no: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: no, arbitrary: fc.constant(null) }, { weight: yes, arbitrary: arb });
}

const stepCase: fc.Arbitrary<MoneyStep> = fc.record({
  // Mostly small steps (a case's time grows with its items), a large one now and then: 1–200 in all.
  items: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }) }, { weight: 1, arbitrary: fc.integer({ min: 9, max: 50 }) }),
  size: fc.constantFrom(256 as const, 512 as const, 768 as const),
  steps: fc.integer({ min: 1, max: 8 }),
  timeout: fc.integer({ min: 2, max: 12 }),
  retries: fc.integer({ min: 0, max: 2 }),
  save: fc.boolean(),
});

const moneyCase: fc.Arbitrary<MoneyCase> = fc.record({
  steps: fc.array(stepCase, { minLength: 1, maxLength: 4 }),
  durationMs: fc.integer({ min: 500, max: 8000 }),
  fault: fc.option(
    fc.record({
      fault: fc.constantFrom<Fault>('reset', 'cut-after-headers', 'cut-mid-body'),
      phase: fc.constantFrom('submit' as const, 'poll' as const, 'download' as const),
      rate: fc.double({ min: 0.05, max: 0.5, noNaN: true }),
      seed: fc.integer({ min: 1, max: 1000 }),
    }),
    { nil: null },
  ),
  crashAfter: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 })),
  twin: sometimes(fc.record({ waitLock: fc.boolean() }), 1, 3),
  daily: sometimes(fc.integer({ min: 2, max: 30 }), 1, 3),
  // Caps from ones that refuse everything to ones that fit every item.
  maxCost: sometimes(fc.integer({ min: 1, max: 400 }).map((m) => m / 1000), 1, 2),
  service: sometimes(fc.record({ error500: fc.integer({ min: 0, max: 20 }).map((p) => p / 100), dropAnswer: fc.integer({ min: 0, max: 10 }).map((p) => p / 100) }), 1, 3),
});

/** Whether a session took item `name` (`step/index`) up: submitted it, deferred it again, or ended it with an outcome of its own. */
function takenUp(events: readonly RunEvent[], name: string): boolean {
  return events.some(
    (e) =>
      'node' in e &&
      `${e.node.step}/${e.node.index}` === name &&
      (e.type === 'item-submitted' || e.type === 'item-deferred' || e.type === 'item-failed' || e.type === 'item-unknown' || e.type === 'item-timed-out' || (e.type === 'item-done' && e.earlier !== true)),
  );
}

/** One case: the faulty session, then clean ones until nothing is left to collect. */
async function runCase(c: MoneyCase): Promise<void> {
  const dir = await mkdtemp(join(SCRATCH, 'deflow-money-'));
  const clock = createEventClock();
  const started = performance.now();
  const emulator = await startEmulator({
    clock,
    config: {
      balance: 1_000_000,
      jobs: { duration_ms: c.durationMs, jitter: 0.3, scale_by_input: false, fail_rate: 0 },
      rate_limits: { endpoints: { 'images/generations': { rpm: 6000, rpd: c.daily } }, jobs_status: null },
      ...(c.service === null ? {} : { faults: { error_500_rate: c.service.error500, drop_answer_rate: c.service.dropAnswer } }),
    },
  });
  const proxy = await startFaultProxy(emulator.url, { clock });
  const clientOf = () => new DeapiClient({ apiKey: emulator.keys.api, baseUrl: proxy.url, clock, dispatcher: clock.dispatcher, governor: new GatedGovernor({ clock }) });
  const client = clientOf();
  // The twin: another process, with its own client and governor.
  const twinClient = c.twin === null ? null : clientOf();
  try {
    await writeFile(join(dir, 'workflow.yaml'), moneyWorkflow('money', c.steps, { itemPrefix: 'p', maxCost: c.maxCost }));
    const graph = await graphOf(dir);
    const stateDir = join(dir, '.deflow');
    let last: RunEvent[] = [];
    const seen: RunEvent[] = [];
    let sessions = 0;
    let days = 0;
    /** Items deferred to a day not yet come (`step/index`). */
    const awaitingDay = new Set<string>();
    const session = async (who: DeapiClient, events: RunEvent[], crash: number, waitLockMs?: number): Promise<void> => {
      let records = 0;
      try {
        await runDurablyWith({
          client: who,
          clock,
          graph,
          stateDir,
          runId: RUN_ID,
          ...(c.maxCost === null ? {} : { quote: (onEvent) => quoteRun(quoteInputFromGraph(graph), { prices: clientPriceSource(who), clock, onEvent }) }),
          ...(waitLockMs === undefined ? {} : { waitLockMs }),
          onEvent: (event) => events.push(event),
          journalHooks: {
            onAfterSync: () => {
              if (crash > 0 && ++records === crash) throw new Error('killed (property test)');
            },
          },
        });
      } catch {
        // A killed session (the next one resumes from the journal), or the twin refused the state folder.
      }
    };
    for (let n = 0; n <= MAX_SESSIONS + days; n++) {
      sessions++;
      proxy.plan = n === 0 && c.fault !== null ? c.fault : null;
      const events: RunEvent[] = [];
      const crash = n === 0 && c.crashAfter > 0 ? c.crashAfter : 0;
      if (n === 0 && c.twin !== null && twinClient !== null) {
        // Started together on one state folder: one session holds it; the other is refused, or waits and then resumes.
        const twinEvents: RunEvent[] = [];
        await Promise.all([session(client, events, crash), session(twinClient, twinEvents, 0, c.twin.waitLock ? 3_600_000 : undefined)]);
        seen.push(...twinEvents);
      } else await session(client, events, crash);
      last = events;
      seen.push(...events);
      const finished = events.find((e): e is Extract<RunEvent, { type: 'run-finished' }> => e.type === 'run-finished');
      const deferred = events.filter((e): e is Extract<RunEvent, { type: 'item-deferred' }> => e.type === 'item-deferred');
      if (awaitingDay.size > 0) {
        // 5. A deferred item is not forgotten: the first session after its day refilled takes it up again.
        for (const name of awaitingDay) expect(takenUp(events, name), `deferred item ${name} in the session after its day`).toBe(true);
        awaitingDay.clear();
      }
      if (deferred.length > 0 && days < MAX_DAYS) {
        // A daily cap was reached: the next session runs once its window has refilled.
        days++;
        if (days === 1 && deferred.every((e) => e.resetAt !== null)) {
          // 6. A session started before the day refilled asks nothing of the closed pool: no job created, no request refused.
          const before = emulator.stats();
          const early: RunEvent[] = [];
          sessions++;
          // A new process: a client that has not met the closed window itself (only the journal knows of it).
          const fresh = clientOf();
          try {
            await session(fresh, early, 0);
          } finally {
            await fresh.close();
          }
          seen.push(...early);
          const after = emulator.stats();
          expect({ created: after.submissions - before.submissions, refused: (after.by_status['429'] ?? 0) - (before.by_status['429'] ?? 0) }).toEqual({ created: 0, refused: 0 });
          for (const e of early) if (e.type === 'item-deferred') awaitingDay.add(`${e.node.step}/${e.node.index}`);
        }
        for (const e of deferred) awaitingDay.add(`${e.node.step}/${e.node.index}`);
        const resetAt = Math.max(...deferred.map((e) => e.resetAt ?? clock.now() + 86_400_000));
        await clock.sleep(Math.max(0, resetAt - clock.now()) + 1000);
        continue;
      }
      const quiet = emulator.jobs().every((j) => j.status !== 'processing' && j.status !== 'pending');
      const progressed = events.some((e) => e.type === 'item-submitted' || (e.type === 'item-done' && e.earlier !== true));
      if (n > 0 && finished !== undefined && (finished.counts.timedOut ?? 0) === 0 && quiet && (finished.status === 'done' || !progressed)) break;
    }

    // 1. No item has two jobs charged at the service.
    const charged = emulator.jobs().filter((j) => j.status === 'done');
    const byDigest = new Map<string, number>();
    for (const job of charged) byDigest.set(job.params_digest, (byDigest.get(job.params_digest) ?? 0) + 1);
    expect([...byDigest].filter(([, n]) => n > 1)).toEqual([]);

    // 2. Every item of the last session ends in a state that says what happened to its money.
    const ends = new Map<string, RunEvent>();
    for (const event of last) if ('node' in event && event.type !== 'item-queued' && event.type !== 'item-progress' && event.type !== 'item-submitted' && event.type !== 'item-downloading' && event.type !== 'item-retry') ends.set(`${event.node.step}/${event.node.index}`, event);
    for (const event of ends.values()) {
      if (event.type === 'item-failed') expect(event.error.code).toMatch(/^E_[A-Z_]+$/);
      if (event.type === 'item-timed-out') expect(event.requestId).toMatch(/\S/);
    }
    const finished = last.find((e): e is Extract<RunEvent, { type: 'run-finished' }> => e.type === 'run-finished');
    expect(finished).toBeDefined();
    if (process.env['MONEY_VERBOSE']) {
      const count = (type: string) => seen.filter((e) => e.type === type).length;
      process.stderr.write(`case: ${c.steps.length} steps, ${c.steps.reduce((n, s) => n + s.items, 0)} items, ${c.durationMs} ms jobs, fault ${c.fault?.fault ?? '-'}/${c.fault?.phase ?? '-'}, crash ${c.crashAfter}, twin ${c.twin === null ? '-' : c.twin.waitLock ? 'waits' : 'no-wait'}, daily ${c.daily ?? '-'}, max_cost ${c.maxCost ?? '-'}, service 500s/lost answers ${c.service === null ? '-' : `${c.service.error500}/${c.service.dropAnswer}`}: ${sessions} sessions (${days} days); deferred ${count('item-deferred')}, timed-out ${count('item-timed-out')}, unsaved ${seen.filter((e) => e.type === 'item-failed' && e.unsaved !== undefined).length}, unknown ${count('item-unknown')}, same-job retries ${seen.filter((e) => e.type === 'item-retry' && e.requestId !== undefined).length}; ${charged.length} jobs charged, ${finished!.status}, spent ${finished!.spent}; ${Math.round(performance.now() - started)} ms\n`);
    }

    // 3. The stated spend equals the service's charges for the jobs deflow journalled, once none is in flight.
    const journalled = new Set<string>();
    for (const record of (await readJournal(runPaths(stateDir, RUN_ID).journal)).records) {
      if ((record.t === 'submitted' || record.t === 'paid' || record.t === 'timed-out') && record.request_id) journalled.add(record.request_id);
    }
    const running = emulator.jobs().some((j) => j.status === 'processing' || j.status === 'pending');
    if (!running && (finished!.counts.timedOut ?? 0) === 0) {
      const service = addMicros(...charged.filter((j) => journalled.has(j.request_id)).map((j) => toMicros(j.price)));
      expect(toMicros(finished!.spent)).toBe(service);
    }

    // 4. With a budget, the run's jobs never cost more than max_cost (the service's charges, in flight ones at their price), nor does any session state more.
    if (c.maxCost !== null) {
      const cap = toMicros(c.maxCost);
      const jobs = emulator.jobs().filter((j) => journalled.has(j.request_id) && j.status !== 'error');
      expect(addMicros(...jobs.map((j) => toMicros(j.price)))).toBeLessThanOrEqual(cap);
      for (const event of seen) if (event.type === 'run-finished') expect(toMicros(event.spent)).toBeLessThanOrEqual(cap);
    }
  } finally {
    await client.close();
    await twinClient?.close();
    await proxy.close();
    await emulator.close();
    await clock.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('money invariants (fast-check, discrete-event clock)', () => {
  it(`${RUNS} random workflows with faults, slow jobs and kills: nothing charged twice, every item accounted for, spend = charges`, async () => {
    await fc.assert(fc.asyncProperty(moneyCase, runCase), { numRuns: RUNS, seed: SEED, endOnFailure: true });
  }, Math.max(3_600_000, RUNS * 10_000));
});
