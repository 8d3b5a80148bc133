/**
 * `npm run bench -- scaleout [--n 1000] [--time-scale 50] [--workers 1,2,4] [--matrix 3] [--skip-embedded]`
 *
 * Distributed mode on the emulator's virtual clock: N items through the pipeline benchmark's
 * two-step chain (transcribe 30 s → speak 10 s ± 30 %, 60 rpm per submission endpoint, job
 * status polls counted in their own 600 rpm pool), run
 *   - embedded: one `runWorkflow` process (the reference);
 *   - queue: a coordinator (`runQueued`) and 1, 2 and 4 worker processes (`startQueueWorker`);
 *   - matrix: 3 independent runs sharing the account through `--governor` (the items split
 *     between them, as a CI matrix would), no coordinator.
 * Every process (emulator aside, which stays here) reads one virtual clock. Redis is a private
 * redis-server on a unix socket, stopped by its PID. Reported per variant: makespan against the
 * lower bound of the pipeline benchmark (the account's rate is the same however many processes
 * share it), 429s, polls per job, and Redis commands per job (`total_commands_processed` of
 * INFO, a Lua call counting once, over the whole variant, idle workers included).
 * Targets: ≤ 1.10 × bound at every worker count; 0 429s; ≤ 30 Redis commands per job.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { link, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { DeapiClient } from '../src/client/deapi-client.js';
import type { Governor } from '../src/client/index.js';
import { makeMp3 } from '../src/emulator/media/index.js';
import { startEmulator } from '../src/emulator/start-emulator.js';
import type { RunEvent } from '../src/engine/contracts/events.js';
import { digestWorkflow } from '../src/engine/journal/durable-run.js';
import { accountScope } from '../src/engine/queue/account-scope.js';
import { runQueued } from '../src/engine/queue-coordinator.js';
import { openSharedGovernor } from '../src/engine/queue/open-governor.js';
import { startQueueWorker } from '../src/engine/queue/queue-worker.js';
import { parseRedisUrl } from '../src/engine/queue/redis-url.js';
import { runWorkflow } from '../src/engine/run-workflow.js';
import { GatedGovernor } from '../src/engine/run/submit-gate.js';
import { validateWorkflow } from '../src/workflow/validate/validate-workflow.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { printTable, readNumberArg, round, transcribeThenSpeakWorkflow } from './_bench-util.js';
import { anchoredClock, anchorNow, type ClockAnchor, ownUsage } from './_child-process.js';
import { lowerBoundS } from './pipeline.js';

const D1_MS = 30_000;
const D2_MS = 10_000;
const RPM = 60;
const STATUS_RPM = 600;

type Role = 'embedded' | 'coordinator' | 'worker' | 'matrix';

interface Payload {
  readonly role: Role;
  readonly url: string;
  readonly apiKey: string;
  readonly anchor: ClockAnchor;
  /** The workflow's folder. */
  readonly dir: string;
  readonly redisUrl: string;
}

interface Figures {
  readonly variant: string;
  readonly processes: number;
  readonly makespan_s: number;
  readonly lower_bound_s: number;
  readonly vs_bound: number;
  readonly http_429: number;
  readonly polls_per_job: number;
  /** Commands the processes sent (a Lua call counts once). */
  readonly redis_commands_per_job: number | null;
  /** Commands Redis ran, those inside Lua scripts included. */
  readonly redis_commands_with_scripts_per_job: number | null;
  readonly done: number;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  linkBenchSchemas();
  const n = readNumberArg(args, 'n', 1000);
  const timeScale = readNumberArg(args, 'time-scale', 50);
  const workerCounts = (args.indexOf('--workers') >= 0 ? (args[args.indexOf('--workers') + 1] ?? '') : '1,2,4').split(',').map(Number).filter((w) => w >= 1);
  const matrix = readNumberArg(args, 'matrix', 3);
  const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-scaleout-'));
  const redis = await startRedis(dir);
  try {
    await prepareWorkspace(dir, n, matrix);
    process.stdout.write(`scaleout: ${n} items × (transcribe 30 s → speak 10 s, ±30 %), ${RPM} rpm per endpoint, polls counted (${STATUS_RPM} rpm); time scale ${timeScale}\n`);
    const bound = lowerBoundS(n, STATUS_RPM);
    const results: Figures[] = [];
    if (!args.includes('--skip-embedded')) results.push(await variant('embedded', 1, n, bound, timeScale, redis, (ctx) => runRoles(ctx, [{ role: 'embedded', dir: join(dir, 'all') }], [])));
    for (const workers of workerCounts) {
      results.push(
        await variant(`queue, ${workers} worker${workers > 1 ? 's' : ''}`, workers + 1, n, bound, timeScale, redis, (ctx) =>
          runRoles(ctx, [{ role: 'coordinator', dir: join(dir, 'all') }], Array.from({ length: workers }, () => ({ role: 'worker' as const, dir: join(dir, 'all') }))),
        ),
      );
    }
    if (matrix > 0) {
      results.push(
        await variant(`--governor matrix of ${matrix}`, matrix, n, bound, timeScale, redis, (ctx) =>
          runRoles(ctx, Array.from({ length: matrix }, (_, i) => ({ role: 'matrix' as const, dir: join(dir, `part${i}`) })), []),
        ),
      );
    }
    printTable(
      ['variant', 'processes', 'makespan s', 'bound s', 'x bound', '429s', 'polls/job', 'redis cmd/job', 'incl. in scripts', 'done'],
      results.map((f) => [f.variant, f.processes, f.makespan_s, f.lower_bound_s, f.vs_bound, f.http_429, f.polls_per_job, f.redis_commands_per_job ?? '-', f.redis_commands_with_scripts_per_job ?? '-', f.done]),
    );
    const queue = results.filter((f) => f.variant.startsWith('queue'));
    return {
      n,
      time_scale: timeScale,
      lower_bound_s: bound,
      worst_queue_vs_bound: Math.max(...queue.map((f) => f.vs_bound)),
      max_429: Math.max(...results.map((f) => f.http_429)),
      max_redis_commands_per_job: Math.max(...results.map((f) => f.redis_commands_per_job ?? 0)),
      variants: results,
    };
  } finally {
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

interface VariantContext {
  readonly url: string;
  readonly apiKey: string;
  readonly anchor: ClockAnchor;
  readonly redisUrl: string;
}

async function variant(
  name: string,
  processes: number,
  n: number,
  bound: number,
  timeScale: number,
  redis: TestRedisLike,
  body: (ctx: VariantContext) => Promise<{ makespan_ms: number; done: number }>,
): Promise<Figures> {
  const anchor = anchorNow(timeScale);
  const rate = { rpm: RPM, rpd: null };
  const emulator = await startEmulator({
    clock: anchoredClock(anchor),
    config: {
      time_scale: timeScale,
      balance: 1_000_000,
      rate_limits: { endpoints: { 'audio/transcriptions': rate, 'audio/speech': rate }, jobs_status: { rpm: STATUS_RPM, rpd: null } },
      jobs: { durations: { 'audio/transcriptions': D1_MS, 'audio/speech': D2_MS }, jitter: 0.3, scale_by_input: false },
    },
  });
  const commands = new Redis({ path: redis.socket });
  // MONITOR sees every command, those a Lua script runs marked `lua`: clients' own are the rest.
  const monitorBase = new Redis({ path: redis.socket });
  const monitor = await monitorBase.monitor();
  let sent = 0;
  monitor.on('monitor', (_time: string, _args: string[], source: string) => {
    if (source !== 'lua') sent++;
  });
  try {
    await commands.flushall();
    await commands.config('RESETSTAT');
    const before = await totalCommands(commands);
    const sentBefore = sent;
    const figures = await body({ url: emulator.url, apiKey: emulator.keys.api, anchor, redisUrl: redis.url });
    const after = await totalCommands(commands);
    // Let MONITOR's stream catch up.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sentDuring = sent - sentBefore - 1;
    if (process.env.SCALEOUT_COMMANDSTATS) process.stdout.write(`${(await commands.info('commandstats')).split('\n').filter((l) => l.startsWith('cmdstat_')).map((l) => l.replace(/,usec.*$/, '')).join('\n')}\n`);
    const stats = emulator.stats();
    const jobs = 2 * n;
    if (process.env.SCALEOUT_TIMELINE) {
      const list = (await (await fetch(`${emulator.url}/_emulator/jobs`)).json()) as { task: string; created_at: string; finished_at: string | null }[];
      const t0 = Math.min(...list.map((j) => Date.parse(j.created_at)));
      const line = (task: string) => {
        const buckets = new Map<number, number>();
        for (const j of list.filter((x) => x.task === task)) {
          const b = Math.floor((Date.parse(j.created_at) - t0) / 10_000) * 10;
          buckets.set(b, (buckets.get(b) ?? 0) + 1);
        }
        return [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([b, c]) => `${b}:${c}`).join(' ');
      };
      // The service's fixed windows as they opened: start (s from the first job), submissions in it; and the idle gaps between them.
      const windows = (task: string) => {
        const times = list.filter((x) => x.task === task).map((j) => Date.parse(j.created_at) - t0).sort((a, b) => a - b);
        const opened: string[] = [];
        let start = Number.NEGATIVE_INFINITY;
        let count = 0;
        let idle = 0;
        for (const t of times) {
          if (t >= start + 60_000) {
            if (count > 0) opened.push(`${round(start / 1000, 1)}:${count}`);
            if (Number.isFinite(start)) idle += t - (start + 60_000);
            start = Math.floor((t + t0) / 1000) * 1000 - t0;
            count = 0;
          }
          count++;
        }
        opened.push(`${round(start / 1000, 1)}:${count}`);
        const ends = list.filter((x) => x.task === task && x.finished_at).map((j) => Date.parse(j.finished_at!) - t0);
        return `${opened.join(' ')} | idle between windows ${round(idle / 1000, 1)} s, last finished ${round(Math.max(...ends) / 1000, 1)} s`;
      };
      process.stdout.write(`    transcribe ${line('audio.transcribe')}\n    speak ${line('audio.speech')}\n`);
      process.stdout.write(`    transcribe windows ${windows('audio.transcribe')}\n    speak windows ${windows('audio.speech')}\n`);
    }
    const makespan = figures.makespan_ms / 1000;
    process.stdout.write(`  ${name}: ${round(makespan, 1)} s (${round(makespan / bound, 3)} × bound), ${stats.by_status['429'] ?? 0} 429s\n`);
    return {
      variant: name,
      processes,
      makespan_s: round(makespan, 1),
      lower_bound_s: bound,
      vs_bound: round(makespan / bound, 3),
      http_429: stats.by_status['429'] ?? 0,
      polls_per_job: round(stats.polls / jobs, 3),
      // The embedded run sends none; the INFO calls themselves are not counted.
      redis_commands_per_job: name === 'embedded' ? null : round(sentDuring / jobs, 2),
      redis_commands_with_scripts_per_job: name === 'embedded' ? null : round((after - before - 1) / jobs, 2),
      done: figures.done,
    };
  } finally {
    commands.disconnect();
    monitor.disconnect();
    monitorBase.disconnect();
    await emulator.close();
  }
}

async function totalCommands(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
}

/**
 * Starts the `workers` (waits until each serves), runs the `drivers` to their end, stops the
 * workers. Makespan: from the first driver's start to the last one's end (virtual ms).
 */
async function runRoles(ctx: VariantContext, drivers: readonly { role: Role; dir: string }[], workers: readonly { role: Role; dir: string }[]): Promise<{ makespan_ms: number; done: number }> {
  const started = workers.map((w) => spawnRole({ ...ctx, role: w.role, dir: w.dir }));
  try {
    await Promise.all(started.map((w) => w.ready));
    const reports = await Promise.all(drivers.map((d) => spawnRole({ ...ctx, role: d.role, dir: d.dir }).result));
    for (const report of reports) for (const problem of (report.problems as string[] | undefined) ?? []) process.stdout.write(`    ${problem}\n`);
    const starts = reports.map((r) => Number(r.started));
    const ends = reports.map((r) => Number(r.finished));
    return { makespan_ms: Math.max(...ends) - Math.min(...starts), done: reports.reduce((sum, r) => sum + Number(r.done), 0) };
  } finally {
    for (const w of started) w.stop();
    await Promise.all(started.map((w) => w.result.catch(() => ({}))));
  }
}

interface Spawned {
  readonly ready: Promise<void>;
  readonly result: Promise<Record<string, unknown>>;
  stop(): void;
}

function spawnRole(payload: Payload): Spawned {
  const child: ChildProcess = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', JSON.stringify(payload)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.includes('READY\n')) markReady();
  });
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) reject(new Error(`${payload.role} exited with ${code}: ${last}`));
      else resolve(JSON.parse(last) as Record<string, unknown>);
    });
  });
  return {
    ready,
    result,
    stop: () => {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
    },
  };
}

async function prepareWorkspace(dir: string, n: number, parts: number): Promise<void> {
  const source = join(dir, 'clip.mp3');
  await writeFile(source, makeMp3(3));
  const workflow = transcribeThenSpeakWorkflow('bench-scaleout');
  const folders = ['all', ...Array.from({ length: parts }, (_, i) => `part${i}`)];
  for (const folder of folders) {
    await mkdir(join(dir, folder, 'clips'), { recursive: true });
    await writeFile(join(dir, folder, 'pipeline.yaml'), workflow);
  }
  for (let i = 0; i < n; i++) {
    const name = `c${String(i).padStart(5, '0')}.mp3`;
    await link(source, join(dir, 'all', 'clips', name));
    if (parts > 0) await link(source, join(dir, `part${i % parts}`, 'clips', name));
  }
}

interface TestRedisLike {
  readonly url: string;
  readonly socket: string;
  stop(): Promise<void>;
}

/** A private redis-server on a unix socket, stopped by its PID. */
async function startRedis(dir: string): Promise<TestRedisLike> {
  if (spawnSync('redis-server', ['--version']).status !== 0) throw new Error('scaleout needs redis-server: apt-get update && apt-get install -y redis-server');
  const socket = join(dir, 'redis.sock');
  const child = spawn('redis-server', ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (/ready to accept connections/i.test(log)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  return {
    url: `unix://${socket}`,
    socket,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

// ---- child processes ----

async function child(payload: Payload): Promise<Record<string, unknown>> {
  const clock = anchoredClock(payload.anchor);
  const workflow = join(payload.dir, 'pipeline.yaml');
  const target = parseRedisUrl(payload.redisUrl, '--queue');
  const scope = accountScope(payload.url, payload.apiKey);
  if (payload.role === 'embedded') {
    const validation = await validateWorkflow(workflow, { offline: true });
    const client = new DeapiClient({ apiKey: payload.apiKey, baseUrl: payload.url, clock, governor: new GatedGovernor({ clock }) });
    const times = timing();
    const outcome = await runWorkflow({ graph: validation.graph!, client, clock, stateDir: join(payload.dir, `.deflow-${process.pid}`), onEvent: times.sink });
    await client.close();
    return { ...times.span(), done: outcome.counts.done };
  }
  const shared = await openSharedGovernor(target, { scope, clock });
  const client = new DeapiClient({ apiKey: payload.apiKey, baseUrl: payload.url, clock, governor: shared.governor });
  try {
    if (payload.role === 'worker') {
      const trace = process.env.SCALEOUT_TRACE ? traceWorker(shared.governor, clock) : undefined;
      const worker = await startQueueWorker({ target, redis: shared.redis, governor: shared.governor, client, scope, clock, poolPollMs: 100, ...(trace ? { onEvent: trace, log: (line: string) => process.stderr.write(`LOG ${process.pid} ${new Date(clock.now()).toISOString()} ${line}\n`) } : {}) });
      process.stdout.write('READY\n');
      await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
      await worker.close();
      return { finished: worker.finished, governor_calls: shared.governor.redisCalls };
    }
    const validation = await validateWorkflow(workflow, { offline: true });
    const graph = validation.graph!;
    const times = timing();
    const stateDir = join(payload.dir, `.deflow-${process.pid}`);
    const outcome =
      payload.role === 'coordinator'
        ? await runQueued({ graph, client, clock, stateDir, onEvent: times.sink, target, redis: shared.redis, scope, workflowDigest: await digestWorkflow(graph), givenInputs: {}, cwd: payload.dir, useCache: false })
        : await runWorkflow({ graph, client, clock, stateDir, onEvent: times.sink });
    return { ...times.span(), done: outcome.counts.done, governor_calls: shared.governor.redisCalls };
  } finally {
    await client.close();
    await shared.close();
  }
}

/** SCALEOUT_TRACE: every 5 virtual s, per pool, requests waiting at the governor and jobs submitted but not done (stderr). */
function traceWorker(governor: Pick<Governor, 'acquire'>, clock: { now(): number }): (event: RunEvent) => void {
  const waiting = new Map<string, number>();
  const open = new Map<string, number>();
  const submitted = new Map<string, number>();
  const acquire = governor.acquire.bind(governor);
  governor.acquire = async (request) => {
    const pool = request.pool ?? '-';
    waiting.set(pool, (waiting.get(pool) ?? 0) + 1);
    try {
      return await acquire(request);
    } finally {
      waiting.set(pool, (waiting.get(pool) ?? 0) - 1);
    }
  };
  let lastReal = Date.now();
  let lag = 0;
  setInterval(() => {
    const now = Date.now();
    lag = Math.max(lag, now - lastReal - 100);
    lastReal = now;
  }, 100).unref();
  const t0 = clock.now();
  setInterval(() => {
    const parts = [...new Set([...waiting.keys(), ...open.keys()])].map((k) => `${k}: wait ${waiting.get(k) ?? 0} open ${open.get(k) ?? 0} sent ${submitted.get(k) ?? 0}`);
    process.stderr.write(`TRACE ${process.pid} t=${Math.round((clock.now() - t0) / 1000)} lag=${lag}ms ${parts.join(' | ')}\n`);
    lag = 0;
  }, 500).unref();
  return (event) => {
    if (event.type === 'item-submitted') {
      open.set(event.node.step, (open.get(event.node.step) ?? 0) + 1);
      submitted.set(event.node.step, (submitted.get(event.node.step) ?? 0) + 1);
    }
    if (event.type === 'item-done' || event.type === 'item-failed') open.set(event.node.step, (open.get(event.node.step) ?? 0) - 1);
  };
}

function timing(): { sink: (event: RunEvent) => void; span: () => { started: number; finished: number; problems: string[] } } {
  let started = 0;
  let finished = 0;
  let firstSubmitted = 0;
  let lastDone = 0;
  const problems: string[] = [];
  return {
    sink: (event) => {
      if (event.type === 'run-started') started = event.ts;
      if (event.type === 'run-finished') finished = event.ts;
      if (event.type === 'item-submitted') firstSubmitted ||= event.ts;
      if (process.env.SCALEOUT_TIMELINE && (event.type === 'run-started' || event.type === 'quoted' || (event.type === 'item-queued' && event.node.index === 0) || (event.type === 'item-submitted' && event.node.index === 0))) {
        process.stderr.write(`EVENT ${new Date(event.ts).toISOString()} ${event.type} ${'node' in event ? event.node.step : ''}\n`);
      }
      if (event.type === 'item-done') lastDone = event.ts;
      if (event.type === 'item-failed' && problems.length < 5) problems.push(`${event.node.step}[${event.node.index}] failed: ${event.error.code} ${event.error.message}`);
      if (event.type === 'item-unknown' && problems.length < 5) problems.push(`${event.node.step}[${event.node.index}] unknown: ${event.reason}`);
    },
    span: () => {
      if (process.env.SCALEOUT_TIMELINE) problems.push(`run: first submission seen ${round((firstSubmitted - started) / 1000, 1)} s after the start, last item done ${round((finished - lastDone) / 1000, 1)} s before the end, ${round((finished - started) / 1000, 1)} s in all`);
      return { started, finished, problems };
    },
  };
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await child(JSON.parse(process.argv[3] ?? '{}') as Payload);
  process.stdout.write(`${JSON.stringify({ ...result, ...ownUsage() })}\n`);
  process.exit(0);
}
