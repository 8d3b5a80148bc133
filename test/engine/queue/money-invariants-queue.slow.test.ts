/**
 * Money invariants in queue mode, as properties (fast-check): a coordinator and 1, 2 or 4 queue
 * workers (each with its own Redis connections, governor and client, as separate processes
 * would have them) on a private redis-server and an emulator at time scale 20. Random
 * workflows of 1–3 steps run in order (1–36 items), random prices, jobs that may be slower than
 * their step's `timeout`; one worker's requests may go through a fault proxy (a reset or a cut
 * answer on polls or downloads, after the service acted); the first coordinator may be
 * interrupted after its n-th finished item, and one worker may be closed in the middle. Then
 * the coordinator runs again, with clean workers, until nothing is left to collect. The
 * emulator's job list is the judge:
 *
 * 1. no item has two jobs charged at the service (no resubmit flag is passed);
 * 2. every item ends done, failed with a code, skipped, unknown, or timed-out with its request_id;
 * 3. the runs' spend (each as its last coordinator states it) equals the service's charges, to the
 *    micro-dollar, once nothing is in flight or timed out (no fault hits submissions here: every
 *    job created is one deflow knows). This found that a job paid but not saved in one session
 *    and saved in a later one was left out of the run's spend.
 *
 * The result cache is on, as for users: a session after a finished run starts a new run, served
 * from the cache.
 *
 * Heavier than test/engine/money-invariants.slow.test.ts (real time, real Redis): `QUEUE_MONEY_RUNS`
 * cases (10 by default), seed `QUEUE_MONEY_SEED`; `MONEY_VERBOSE=1` prints each case. Runs are in
 * real time, so a counterexample may not fail again at once: `QUEUE_MONEY_CASE='<its JSON>'`
 * replays it (`QUEUE_MONEY_REPEAT=N` times), `MONEY_DEBUG=1` prints each session's item events and
 * the service's jobs.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMicros, toMicros } from '../../../src/common/money.js';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/start-emulator.js';
import type { RunEvent } from '../../../src/engine/contracts/events.js';
import { digestWorkflow } from '../../../src/engine/journal/durable-run.js';
import { accountScope } from '../../../src/engine/queue/account-scope.js';
import { openSharedGovernor } from '../../../src/engine/queue/open-governor.js';
import { type QueueWorker, startQueueWorker } from '../../../src/engine/queue/queue-worker.js';
import { parseRedisUrl } from '../../../src/engine/queue/redis-url.js';
import { runQueued } from '../../../src/engine/queue-coordinator.js';
import { type Fault, startFaultProxy } from '../../helpers/fault-proxy.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { skipWithout } from '../../helpers/system-deps.js';
import { type MoneyStep, moneyWorkflow } from '../../fixtures/money-workflow.js';
import { graphOf } from '../run-helpers.js';

const WITHOUT_REDIS = skipWithout('redis-server');
const RUNS = Number(process.env['QUEUE_MONEY_RUNS'] ?? 10);
const SEED = Number(process.env['QUEUE_MONEY_SEED'] ?? 20261128);
/**
 * Virtual ms per real ms. At 200 a step's 6 s timeout is 30 real ms, shorter than one poll on a
 * loaded machine: resumed timed-out jobs timed out again before their first poll answered.
 */
const TIME_SCALE = 20;
/** Clean coordinator sessions after the first, at most. */
const MAX_SESSIONS = 4;

interface QueueCase {
  /** Every result is saved: the workers' downloads are part of what is tested. */
  readonly steps: readonly Omit<MoneyStep, 'save'>[];
  readonly workers: 1 | 2 | 4;
  /** Job duration, virtual ms (±30 % jitter). */
  readonly durationMs: number;
  /** On the first worker's requests, in the first session. */
  readonly fault: { readonly fault: Fault; readonly phase: 'poll' | 'download'; readonly rate: number; readonly seed: number } | null;
  /** The first coordinator is interrupted after this many finished items (0: never). */
  readonly interruptAfter: number;
  /** The last worker is closed after this many finished items of the first session (0: never). */
  readonly loseWorkerAfter: number;
}

/**
 * Cases that once failed, run first in every run of the suite. The first: two workers, a chain
 * of two steps; a job's cache key covers its upstream jobs' keys, which a worker knew only for
 * the jobs it had run itself, so the keys of the second step depended on which worker ran what,
 * and the next run of the workflow missed the cache and paid all 10 of them again.
 */
const REGRESSIONS: readonly QueueCase[] = [
  {
    steps: [
      { items: 3, size: 256, steps: 2, timeout: 6, retries: 2 },
      { items: 10, size: 512, steps: 6, timeout: 12, retries: 1 },
    ],
    workers: 2,
    durationMs: 505,
    fault: { fault: 'cut-after-headers', phase: 'poll', rate: 0.05, seed: 790 },
    interruptAfter: 0,
    loseWorkerAfter: 19,
  },
];

const queueCase: fc.Arbitrary<QueueCase> = fc.record({
  steps: fc.array(
    fc.record({
      items: fc.integer({ min: 1, max: 12 }),
      size: fc.constantFrom(256 as const, 512 as const, 768 as const),
      steps: fc.integer({ min: 1, max: 8 }),
      timeout: fc.integer({ min: 2, max: 12 }),
      retries: fc.integer({ min: 0, max: 2 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  workers: fc.constantFrom(1 as const, 2 as const, 4 as const),
  durationMs: fc.integer({ min: 500, max: 8000 }),
  fault: fc.option(
    fc.record({
      fault: fc.constantFrom<Fault>('reset', 'cut-after-headers', 'cut-mid-body'),
      phase: fc.constantFrom('poll' as const, 'download' as const),
      rate: fc.double({ min: 0.05, max: 0.5, noNaN: true }),
      seed: fc.integer({ min: 1, max: 1000 }),
    }),
    { nil: null },
  ),
  interruptAfter: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 })),
  loseWorkerAfter: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 })),
});

let redis: TestRedis;
beforeAll(async () => {
  if (!WITHOUT_REDIS) redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

interface Participant {
  readonly client: DeapiClient;
  readonly shared: Awaited<ReturnType<typeof openSharedGovernor>>;
  close(): Promise<void>;
}

async function participant(emulator: RunningEmulator, baseUrl = emulator.url): Promise<Participant> {
  const shared = await openSharedGovernor(parseRedisUrl(redis.url, '--queue'), { scope: accountScope(emulator.url, emulator.keys.api), clock: emulator.clock, heartbeatMs: 500 });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl, clock: emulator.clock, governor: shared.governor });
  return {
    client,
    shared,
    async close() {
      await client.close();
      await shared.close();
    },
  };
}

async function worker(emulator: RunningEmulator, baseUrl?: string): Promise<QueueWorker & { closeAll(): Promise<void> }> {
  const p = await participant(emulator, baseUrl);
  const w = await startQueueWorker({
    target: parseRedisUrl(redis.url, '--queue'),
    redis: p.shared.redis,
    governor: p.shared.governor,
    client: p.client,
    scope: accountScope(emulator.url, emulator.keys.api),
    clock: emulator.clock,
    lockMs: 2000,
    poolPollMs: 200,
  });
  let closed = false;
  return Object.assign(w, {
    async closeAll() {
      if (!closed) {
        closed = true;
        await w.close();
      }
      await p.close();
    },
  });
}

async function runCase(c: QueueCase): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'deflow-money-queue-'));
  const emulator = await startEmulator({
    config: {
      time_scale: TIME_SCALE,
      balance: 1_000_000,
      jobs: { duration_ms: c.durationMs, jitter: 0.3, scale_by_input: false, fail_rate: 0 },
      rate_limits: { endpoints: { 'images/generations': { rpm: 6000, rpd: null } }, jobs_status: null },
    },
  });
  const proxy = await startFaultProxy(emulator.url);
  const open: (QueueWorker & { closeAll(): Promise<void> })[] = [];
  try {
    await writeFile(join(dir, 'workflow.yaml'), moneyWorkflow('money-queue', c.steps.map((s) => ({ ...s, save: true })), { itemPrefix: 'q' }));
    const graph = await graphOf(dir);
    const digest = await digestWorkflow(graph);
    const coordinator = await participant(emulator);
    const spentBySession: number[] = [];
    /** A run's spend, as its last session states it (a session after a finished run starts a new run, served from the cache). */
    const spentByRun = new Map<string, number>();
    let last: RunEvent[] = [];
    const seen: RunEvent[] = [];
    let sessions = 0;
    let timedOutAtEnd = 0;
    try {
      for (let session = 0; session <= MAX_SESSIONS; session++) {
        sessions++;
        proxy.plan = session === 0 ? c.fault : null;
        const count = session === 0 ? c.workers : Math.min(c.workers, 2);
        const workers: (QueueWorker & { closeAll(): Promise<void> })[] = [];
        for (let i = 0; i < count; i++) workers.push(await worker(emulator, i === 0 && session === 0 ? proxy.url : emulator.url));
        open.push(...workers);
        let interrupt!: () => void;
        const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
        let finishedItems = 0;
        const events: RunEvent[] = [];
        const outcome = await runQueued({
          graph,
          client: coordinator.client,
          stateDir: join(dir, '.deflow'),
          target: parseRedisUrl(redis.url, '--queue'),
          redis: coordinator.shared.redis,
          scope: accountScope(emulator.url, emulator.keys.api),
          workflowDigest: digest,
          givenInputs: {},
          cwd: dir,
          ...(session === 0 && c.interruptAfter > 0 ? { interrupted, graceMs: 1 } : {}),
          onEvent: (event) => {
            events.push(event);
            if (session !== 0 || (event.type !== 'item-done' && event.type !== 'item-failed')) return;
            finishedItems++;
            if (finishedItems === c.interruptAfter) interrupt();
            if (finishedItems === c.loseWorkerAfter && workers.length > 1) void workers.at(-1)!.close();
          },
        });
        spentBySession.push(outcome.spent);
        spentByRun.set(outcome.runId, outcome.spent);
        if (process.env['MONEY_DEBUG']) {
          process.stderr.write(`session ${session}: ${outcome.status} spent ${outcome.spent}\n`);
          for (const e of events) if ('node' in e && e.type !== 'item-queued' && e.type !== 'item-progress') process.stderr.write(`  ${e.ts} ${e.type} ${e.node.step}/${e.node.index} ${'requestId' in e ? e.requestId : ''} ${e.type === 'item-failed' || e.type === 'item-timed-out' || e.type === 'item-retry' ? JSON.stringify(e.error) : ''}\n`);
          for (const j of emulator.jobs()) process.stderr.write(`  job ${j.request_id} ${j.status} ${j.params_digest.slice(0, 8)}\n`);
        }
        timedOutAtEnd = outcome.counts.timedOut ?? 0;
        for (const w of workers) await w.closeAll();
        last = events;
        seen.push(...events);
        const quiet = emulator.jobs().every((j) => j.status !== 'processing' && j.status !== 'pending');
        const progressed = events.some((e) => e.type === 'item-submitted' || (e.type === 'item-done' && e.earlier !== true));
        if (session > 0 && (outcome.counts.timedOut ?? 0) === 0 && quiet && (outcome.status === 'done' || !progressed)) break;
      }
    } finally {
      await coordinator.close();
    }

    // 1. No item has two jobs charged at the service.
    const charged = emulator.jobs().filter((j) => j.status === 'done');
    const byDigest = new Map<string, number>();
    for (const job of charged) byDigest.set(job.params_digest, (byDigest.get(job.params_digest) ?? 0) + 1);
    expect([...byDigest].filter(([, n]) => n > 1)).toEqual([]);

    // 2. Every item of the last session ends in a state that says what happened to its money.
    for (const event of last) {
      if (event.type === 'item-failed') expect(event.error.code).toMatch(/^E_[A-Z_]+$/);
      if (event.type === 'item-timed-out') expect(event.requestId).toMatch(/\S/);
    }
    const running = emulator.jobs().some((j) => j.status === 'processing' || j.status === 'pending');
    if (process.env['MONEY_VERBOSE']) {
      const n = (type: string) => seen.filter((e) => e.type === type).length;
      process.stderr.write(
        `queue case: ${c.workers} workers, ${c.steps.length} steps, ${c.steps.reduce((k, s) => k + s.items, 0)} items, ${c.durationMs} ms jobs, fault ${c.fault?.fault ?? '-'}/${c.fault?.phase ?? '-'}, interrupt ${c.interruptAfter}, lose worker ${c.loseWorkerAfter}: ${sessions} sessions; timed-out ${n('item-timed-out')}, unknown ${n('item-unknown')}, failed ${n('item-failed')}; ${charged.length} jobs charged, spent ${spentBySession.join(' → ')}\n`,
      );
    }

    // 3. The run's spend, as the last coordinator states it, equals the service's charges (a job
    // left timed out is counted by the session that adopts it: none may be left).
    if (!running && timedOutAtEnd === 0) {
      const service = addMicros(...charged.map((j) => toMicros(j.price)));
      expect(addMicros(...[...spentByRun.values()].map((usd) => toMicros(usd)))).toBe(service);
    }
  } finally {
    for (const w of open) await w.closeAll().catch(() => {});
    await proxy.close();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe.skipIf(WITHOUT_REDIS)('money invariants in queue mode (fast-check; 1, 2 and 4 workers)', () => {
  it(`${RUNS} random workflows with faults, interrupted coordinators and lost workers: nothing charged twice, every item accounted for, spend = charges`, async () => {
    const replay = process.env['QUEUE_MONEY_CASE'];
    if (replay !== undefined) for (let i = 0; i < Number(process.env['QUEUE_MONEY_REPEAT'] ?? 1); i++) await runCase(JSON.parse(replay) as QueueCase);
    else await fc.assert(fc.asyncProperty(queueCase, runCase), { numRuns: RUNS, seed: SEED, endOnFailure: true, examples: REGRESSIONS.map((c) => [c]) });
  }, Math.max(3_600_000, RUNS * 60_000));
});
