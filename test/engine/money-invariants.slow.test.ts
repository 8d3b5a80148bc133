/**
 * Money invariants, as properties (fast-check) on the discrete-event clock (issue 25, point 8):
 * random workflows of 1–4 steps run in order (`needs`), 1–200 items in all, random prices (image
 * sizes and step counts), jobs that may be slower than their step's `timeout` (with 0–2
 * retries), one fault on one phase of the first session (a reset or a cut answer after the
 * service acted: on submissions, polls or downloads), and a random kill point (the journal
 * fails after its n-th record, as a crash would leave it). Then the run is run again, clean,
 * until it has nothing left to collect. The service (the emulator's job list) is the judge:
 *
 * 1. no item has two jobs charged (done) at the service: no flag to resubmit is ever passed;
 * 2. every item ends done, failed with a code, skipped, unknown, or timed-out with its
 *    request_id (never a bare failure without a code, never a timed-out item without its job);
 * 3. the spend the run states equals what the service charged for the jobs deflow knows (every
 *    job whose request_id it journalled), to the micro-dollar, once nothing is left in flight.
 *
 * `MONEY_RUNS` cases (12 by default, about 80 s: a case takes ~6.6 s; `npm run fuzz:money` runs 5,000), seed `MONEY_SEED`.
 */
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
import { GatedGovernor } from '../../src/engine/run/submit-gate.js';
import { runDurablyWith } from '../../src/engine/run-durably.js';
import { createEventClock } from '../helpers/event-clock.js';
import { type Fault, startFaultProxy } from '../helpers/fault-proxy.js';
import { graphOf, yaml } from './run-helpers.js';

const RUNS = Number(process.env['MONEY_RUNS'] ?? 12);
const SEED = Number(process.env['MONEY_SEED'] ?? 20261127);
/** Clean sessions after the faulty one, at most. */
const MAX_SESSIONS = 6;
const RUN_ID = 'money';

interface StepCase {
  readonly items: number;
  readonly size: 256 | 512 | 768;
  readonly steps: number;
  /** Seconds. */
  readonly timeout: number;
  readonly retries: number;
  readonly save: boolean;
}

interface MoneyCase {
  readonly steps: readonly StepCase[];
  /** Job duration, ms (fixed for every job; ±30 % jitter). */
  readonly durationMs: number;
  readonly fault: { readonly fault: Fault; readonly phase: 'submit' | 'poll' | 'download'; readonly rate: number; readonly seed: number } | null;
  /** The first session's journal fails after this many records (0: no crash). */
  readonly crashAfter: number;
}

const stepCase: fc.Arbitrary<StepCase> = fc.record({
  items: fc.integer({ min: 1, max: 50 }),
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
});

function workflowOf(c: MoneyCase): string {
  const lines = ['version: 1', 'name: money', 'steps:'];
  c.steps.forEach((s, i) => {
    const items = Array.from({ length: s.items }, (_, k) => `p${i}-${k}`);
    lines.push(
      `  s${i}:`,
      '    task: image.generate',
      `    for_each: { items: ${JSON.stringify(items)} }`,
      ...(i > 0 ? [`    needs: s${i - 1}`] : []),
      `    timeout: ${s.timeout}s`,
      `    retries: ${s.retries}`,
      `    with: { prompt: "\${{ item.value }}", model: Flux1schnell, width: ${s.size}, height: ${s.size}, steps: ${s.steps}, seed: 3 }`,
      ...(s.save ? [`    save: "s${i}-\${{ item.index }}.png"`] : []),
    );
  });
  return yaml(...lines);
}

/** One case: the faulty session, then clean ones until nothing is left to collect. */
async function runCase(c: MoneyCase): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'deflow-money-'));
  const clock = createEventClock();
  const emulator = await startEmulator({
    clock,
    config: {
      balance: 1_000_000,
      jobs: { duration_ms: c.durationMs, jitter: 0.3, scale_by_input: false, fail_rate: 0 },
      rate_limits: { endpoints: { 'images/generations': { rpm: 6000, rpd: null } }, jobs_status: null },
    },
  });
  const proxy = await startFaultProxy(emulator.url, { clock });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: proxy.url, clock, dispatcher: clock.dispatcher, governor: new GatedGovernor({ clock }) });
  try {
    await writeFile(join(dir, 'workflow.yaml'), workflowOf(c));
    const graph = await graphOf(dir);
    let last: RunEvent[] = [];
    const seen: RunEvent[] = [];
    let sessions = 0;
    for (let session = 0; session <= MAX_SESSIONS; session++) {
      sessions++;
      proxy.plan = session === 0 && c.fault !== null ? c.fault : null;
      let records = 0;
      const crash = session === 0 && c.crashAfter > 0 ? c.crashAfter : 0;
      const events: RunEvent[] = [];
      try {
        await runDurablyWith({
          client,
          clock,
          graph,
          stateDir: join(dir, '.deflow'),
          runId: RUN_ID,
          onEvent: (event) => events.push(event),
          journalHooks: {
            onAfterSync: () => {
              if (crash > 0 && ++records === crash) throw new Error('killed (property test)');
            },
          },
        });
      } catch {
        // A killed session: the next one resumes from the journal.
      }
      last = events;
      seen.push(...events);
      const finished = events.find((e): e is Extract<RunEvent, { type: 'run-finished' }> => e.type === 'run-finished');
      const quiet = emulator.jobs().every((j) => j.status !== 'processing' && j.status !== 'pending');
      const progressed = events.some((e) => e.type === 'item-submitted' || (e.type === 'item-done' && e.earlier !== true));
      if (session > 0 && finished !== undefined && (finished.counts.timedOut ?? 0) === 0 && quiet && (finished.status === 'done' || !progressed)) break;
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
      process.stderr.write(`case: ${c.steps.length} steps, ${c.steps.reduce((n, s) => n + s.items, 0)} items, ${c.durationMs} ms jobs, fault ${c.fault?.fault ?? '-'}/${c.fault?.phase ?? '-'}, crash ${c.crashAfter}: ${sessions} sessions; timed-out ${count('item-timed-out')}, unsaved ${seen.filter((e) => e.type === 'item-failed' && e.unsaved !== undefined).length}, unknown ${count('item-unknown')}, same-job retries ${seen.filter((e) => e.type === 'item-retry' && e.requestId !== undefined).length}; ${charged.length} jobs charged, ${finished!.status}, spent ${finished!.spent}\n`);
    }

    // 3. The stated spend equals the service's charges for the jobs deflow journalled, once none is in flight.
    const journalled = new Set<string>();
    for (const record of (await readJournal(runPaths(join(dir, '.deflow'), RUN_ID).journal)).records) {
      if ((record.t === 'submitted' || record.t === 'paid' || record.t === 'timed-out') && record.request_id) journalled.add(record.request_id);
    }
    const running = emulator.jobs().some((j) => j.status === 'processing' || j.status === 'pending');
    if (!running && (finished!.counts.timedOut ?? 0) === 0) {
      const service = charged.filter((j) => journalled.has(j.request_id)).reduce((sum, j) => sum + Math.round(j.price * 1e6), 0);
      expect(Math.round(finished!.spent * 1e6)).toBe(service);
    }
  } finally {
    await client.close();
    await proxy.close();
    await emulator.close();
    await clock.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('money invariants (fast-check, discrete-event clock)', () => {
  it(`${RUNS} random workflows with faults, slow jobs and kills: nothing charged twice, every item accounted for, spend = charges`, async () => {
    await fc.assert(fc.asyncProperty(moneyCase, runCase), { numRuns: RUNS, seed: SEED, endOnFailure: true });
  }, 3_600_000);
});
