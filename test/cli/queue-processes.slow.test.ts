/**
 * Distributed mode with real processes: the built CLI (`deflow run --queue`, `deflow worker`,
 * `deflow run --governor`) against a standalone emulator process and a private redis-server,
 * over loopback. Workers and coordinators are killed with SIGKILL; then `/_emulator/jobs`
 * must show no job submitted twice, every output must be on disk exactly once, and the
 * emulator must have answered no 429 (the buckets are shared through Redis, so even the
 * first request of each bucket is the only one sent while its limits are learned).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { yaml } from '../engine/run-helpers.js';
import { call } from '../helpers/emulator-http.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { skipWithout } from '../helpers/system-deps.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';

/** Skipped, saying so, where redis-server is not installed (failing instead in CI). */
const WITHOUT_REDIS = skipWithout('redis-server');

const root = new URL('../../', import.meta.url).pathname;
let build: string;
let main: string;
let redis: TestRedis;

beforeAll(async () => {
  redis = await startTestRedis();
  // Compiled aside, so that no other test's dist/ is touched.
  build = await mkdtemp(join(tmpdir(), 'deflow-queue-build-'));
  await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', join(build, 'dist')], { cwd: root });
  await writeFile(join(build, 'package.json'), '{"type":"module"}\n');
  await symlink(join(root, 'node_modules'), join(build, 'node_modules'));
  await symlink(join(root, 'schemas'), join(build, 'schemas'));
  main = join(build, 'dist', 'cli', 'main.js');
}, 180_000);

afterAll(async () => {
  await redis?.stop();
  if (build) await rm(build, { recursive: true, force: true });
});

/** Tight limits: 4 submissions per 3 s window in each step's pool; jobs of 1.5 s. */
const EMULATOR = yaml(
  'balance: 1000',
  'jobs: { duration_ms: 1500, jitter: 0.3 }',
  'rate_limits: { minute_window_s: 3, endpoints: { "audio/transcriptions": { rpm: 4, rpd: null }, "audio/speech": { rpm: 4, rpd: null } }, jobs_status: null }',
);


async function startEmulator(dir: string): Promise<EmulatorProcess> {
  await writeFile(join(dir, 'emulator.yaml'), EMULATOR);
  return startEmulatorProcess(main, dir);
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  process.kill(child.pid!, signal);
  await exited;
}

interface Proc {
  readonly child: ChildProcess;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function deflow(dir: string, emulator: EmulatorProcess, args: readonly string[]): Proc {
  const env: NodeJS.ProcessEnv = { ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key};
  const child = spawn(process.execPath, [main, ...args], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exit = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null, stderr }));
  return { child, exit };
}

/**
 * A worker. Its lock is short where workers are killed (their jobs are taken over soon), and
 * longer elsewhere: a worker that a saturated machine stalls past its lock loses its job.
 */
const worker = (dir: string, emulator: EmulatorProcess, lockMs = 10_000): Proc => deflow(dir, emulator, ['worker', '--queue', redis.url, '--lock-ms', String(lockMs), '--grace', '2']);

async function workspace(n: number, name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'deflow-queue-'));
  await mkdir(join(dir, 'clips'));
  for (const [path, content] of Object.entries({ 'workflow.yaml': CHAIN.replace('name: durable', `name: ${name}`), ...clips(n) })) await writeFile(join(dir, path), content);
  return dir;
}

/** Jobs the emulator created, and how many of them repeat an earlier one (same task and parameters). */
async function submissions(emulator: EmulatorProcess): Promise<{ jobs: number; duplicates: number; http429: number }> {
  const list = (await call(emulator, 'GET', '/_emulator/jobs')).body as { task: string; params_digest: string }[];
  const counts = new Map<string, number>();
  for (const job of list) counts.set(`${job.task} ${job.params_digest}`, (counts.get(`${job.task} ${job.params_digest}`) ?? 0) + 1);
  const stats = (await call(emulator, 'GET', '/_emulator/stats')).body as { by_status: Record<string, number> };
  return { jobs: list.length, duplicates: [...counts.values()].reduce((sum, c) => sum + c - 1, 0), http429: stats.by_status['429'] ?? 0 };
}

async function expectOutputs(dir: string, n: number): Promise<void> {
  const expected = Array.from({ length: n }, (_, k) => [`c${k}.mp3`, `c${k}.txt`]).flat().sort();
  expect((await readdir(join(dir, 'out'))).sort()).toEqual(expected);
}

const RUN = ['run', 'workflow.yaml', '--quiet', '--no-cache'];

describe.skipIf(WITHOUT_REDIS)('distributed mode with real processes', () => {
  it('a coordinator and 4 workers finish a chained workflow on tight limits without a 429', async () => {
    const dir = await workspace(12, 'four-workers');
    const emulator = await startEmulator(dir);
    const workers = Array.from({ length: 4 }, () => worker(dir, emulator));
    try {
      const run = await deflow(dir, emulator, [...RUN, '--queue', redis.url]).exit;
      expect(run.code, run.stderr).toBe(0);
      await expectOutputs(dir, 12);
      expect(await submissions(emulator)).toEqual({ jobs: 24, duplicates: 0, http429: 0 });
    } finally {
      await Promise.all(workers.map((w) => stopProcess(w.child)));
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a worker killed with SIGKILL 5 times mid-run: nothing submitted twice, every paid output once', async () => {
    const dir = await workspace(16, 'killed-workers');
    const emulator = await startEmulator(dir);
    const steady = worker(dir, emulator, 4000);
    let victim = worker(dir, emulator, 4000);
    try {
      const run = deflow(dir, emulator, [...RUN, '--queue', redis.url, '--report', 'report.json']);
      let kills = 0;
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        if (run.child.exitCode !== null) break;
        await stopProcess(victim.child, 'SIGKILL');
        kills++;
        victim = worker(dir, emulator, 4000);
      }
      const exit = await run.exit;
      expect(kills).toBe(5);
      // A worker killed between its intent and the service's answer leaves that item
      // `unknown` (the service may have the job; nothing may submit it again): the run then
      // exits 1 and names it. Everything else ends done, with its outputs, once.
      const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { totals: { items: number; done: number; failed: number; unknown: number; skipped: number } };
      const { totals } = report;
      expect(totals.failed, exit.stderr).toBe(0);
      expect(totals.unknown).toBeLessThanOrEqual(kills);
      expect(totals.skipped).toBeLessThanOrEqual(totals.unknown);
      expect(totals.done + totals.unknown + totals.skipped).toBe(32);
      expect(exit.code, exit.stderr).toBe(totals.unknown === 0 ? 0 : 1);
      const outputs = (await readdir(join(dir, 'out'))).sort();
      expect(outputs.length).toBe(totals.done);
      expect(new Set(outputs).size).toBe(outputs.length);
      if (totals.unknown === 0) await expectOutputs(dir, 16);
      const seen = await submissions(emulator);
      expect(seen.duplicates).toBe(0);
      expect(seen.http429).toBe(0);
      expect(seen.jobs).toBeGreaterThanOrEqual(totals.done);
      expect(seen.jobs).toBeLessThanOrEqual(totals.done + totals.unknown);
    } finally {
      await Promise.all([stopProcess(steady.child), stopProcess(victim.child)]);
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a coordinator killed with SIGKILL and started again completes the run; nothing is submitted again', async () => {
    const dir = await workspace(12, 'killed-coordinator');
    const emulator = await startEmulator(dir);
    const workers = [worker(dir, emulator), worker(dir, emulator)];
    try {
      const first = deflow(dir, emulator, [...RUN, '--queue', redis.url]);
      // Killed once the workers have submitted a few jobs: mid-run, whatever the machine's speed.
      while ((await submissions(emulator)).jobs < 6 && first.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 100));
      await stopProcess(first.child, 'SIGKILL');
      const before = await submissions(emulator);
      expect(before.jobs).toBeGreaterThan(0);
      expect(before.jobs).toBeLessThan(24);
      const second = await deflow(dir, emulator, [...RUN.filter((a) => a !== '--quiet'), '--queue', redis.url]).exit;
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/resuming run/);
      await expectOutputs(dir, 12);
      expect(await submissions(emulator)).toEqual({ jobs: 24, duplicates: 0, http429: 0 });
    } finally {
      await Promise.all(workers.map((w) => stopProcess(w.child)));
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a queue run can be inspected afterwards: its true state in the run list, status by id and by workflow; a bare run resumes it on its queue', async () => {
    const dir = await workspace(6, 'inspected');
    const emulator = await startEmulator(dir);
    const workers = [worker(dir, emulator)];
    const statusOf = async (args: readonly string[]) => {
      const { code, stderr } = await deflow(dir, emulator, ['status', ...args]).exit;
      return { code, stderr };
    };
    const listed = async (): Promise<{ run_id: string; status: string }[]> => {
      const env: NodeJS.ProcessEnv = { ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key };
      const { stdout } = await promisify(execFile)(process.execPath, [main, 'status', '--json'], { cwd: dir, env });
      return (JSON.parse(stdout) as { runs: { run_id: string; status: string }[] }).runs;
    };
    try {
      const first = deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet', '--keep-going', '--queue', redis.url]);
      while ((await submissions(emulator)).jobs < 2 && first.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 100));
      await stopProcess(first.child, 'SIGKILL');
      // The coordinator is dead: the run is listed as crashed (resumable), not as running or unknown.
      const [killed] = await listed();
      expect(killed).toMatchObject({ status: 'crashed' });
      // Its HTML report, drawn from the event log the coordinator kept, says so too (not running).
      const env: NodeJS.ProcessEnv = { ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key };
      await promisify(execFile)(process.execPath, [main, 'report', killed!.run_id, '--html', 'crashed.html'], { cwd: dir, env });
      expect(await readFile(join(dir, 'crashed.html'), 'utf8')).toContain('<span class="badge crashed" id="run-status">crashed</span>');

      // A bare run resumes it on its queue, with the options it was run with.
      const again = await deflow(dir, emulator, ['run', 'workflow.yaml']).exit;
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`resuming run ${killed!.run_id} with the options it was run with: --keep-going --queue ${redis.url}`);
      expect(again.stderr).toMatch(new RegExp(`resuming run ${killed!.run_id} on `));
      expect((await submissions(emulator)).duplicates).toBe(0);

      expect(await listed()).toEqual([expect.objectContaining({ run_id: killed!.run_id, status: 'done' })]);
      for (const target of [killed!.run_id, 'workflow.yaml']) {
        const env: NodeJS.ProcessEnv = { ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key };
        const { stdout } = await promisify(execFile)(process.execPath, [main, 'status', target], { cwd: dir, env });
        expect(stdout).toContain(`run ${killed!.run_id}: done (a queue run on ${redis.url})`);
      }
      expect((await statusOf(['no-such-run'])).code).not.toBe(0);
    } finally {
      await Promise.all(workers.map((w) => stopProcess(w.child)));
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a queue run keeps its event log: --html and deflow report by id and by workflow draw it; status tells running, stopped and dead workers apart', async () => {
    const dir = await workspace(6, 'report-and-workers');
    const emulator = await startEmulator(dir);
    // The victim's lease is short, so that it is counted dead soon after its SIGKILL.
    const victim = worker(dir, emulator, 3000);
    const steady = worker(dir, emulator);
    const env: NodeJS.ProcessEnv = { ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key };
    const cli = async (args: readonly string[]): Promise<string> => (await promisify(execFile)(process.execPath, [main, ...args], { cwd: dir, env })).stdout;
    type Workers = { pid: number; state: string; last_seen: string; stopped_at: string | null }[];
    const workersOf = async (runId: string): Promise<Workers> => (JSON.parse(await cli(['status', runId, '--json'])) as { workers: Workers }).workers;
    try {
      const run = await deflow(dir, emulator, [...RUN, '--queue', redis.url, '--html', 'run.html']).exit;
      expect(run.code, run.stderr).toBe(0);
      const [runId] = await readdir(join(dir, '.deflow', 'runs'));
      // The coordinator kept the event stream an embedded run keeps, in the same file.
      const events = (await readFile(join(dir, '.deflow', 'runs', runId!, 'events.ndjson'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { type?: string; status?: string });
      expect(events.filter((e) => e.type === 'item-done').length).toBe(12);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'done' });
      for (const html of [await readFile(join(dir, 'run.html'), 'utf8')]) {
        expect(html).toContain(`<span class="badge done" id="run-status">done</span> run <code>${runId}</code>`);
      }
      for (const target of [runId!, 'workflow.yaml']) {
        const out = await cli(['report', target, '--html', `again-${target}.html`]);
        expect(out).toContain(`(run ${runId}, 12 jobs,`);
        expect(await readFile(join(dir, `again-${target}.html`), 'utf8')).toContain('id="run-status">done</span>');
      }

      // Both workers are alive and beating.
      const alive = await workersOf(runId!);
      expect(alive.map((w) => [w.pid, w.state]).sort()).toEqual([[victim.child.pid, 'running'], [steady.child.pid, 'running']].sort());
      await stopProcess(victim.child, 'SIGKILL');
      const killedAt = Date.now();
      await stopProcess(steady.child, 'SIGINT');
      expect((await steady.exit).code).toBe(0);
      // Dead once its heartbeat is older than its lease (3 s): looked at until then, and a while after.
      let workers = await workersOf(runId!);
      while (workers.find((w) => w.pid === victim.child.pid)?.state !== 'dead' && Date.now() - killedAt < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        workers = await workersOf(runId!);
      }
      const killed = workers.find((w) => w.pid === victim.child.pid)!;
      const stopped = workers.find((w) => w.pid === steady.child.pid)!;
      expect(killed).toMatchObject({ state: 'dead', stopped_at: null });
      // Its last heartbeat came before the kill.
      expect(Date.parse(killed.last_seen)).toBeLessThanOrEqual(killedAt);
      expect(stopped.state).toBe('stopped');
      expect(Date.parse(stopped.stopped_at!)).toBeGreaterThanOrEqual(killedAt);
      const text = await cli(['status', runId!]);
      expect(text).toContain(`pid ${victim.child.pid}: dead (no heartbeat since ${killed.last_seen}`);
      expect(text).toContain(`pid ${steady.child.pid}: stopped (closed cleanly at ${stopped.stopped_at})`);
    } finally {
      await Promise.all([stopProcess(victim.child), stopProcess(steady.child)]);
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a queue run against an emulator at time scale 50: deflow status gives its real dates, the emulator time beside them', async () => {
    const dir = await workspace(2, 'time-scale');
    await writeFile(join(dir, 'emulator.yaml'), yaml('balance: 1000', 'jobs: { duration_ms: 20000, scale_by_input: false }', 'rate_limits: { jobs_status: null }'));
    const emulator = await startEmulatorProcess(main, dir, { args: ['--config', 'emulator.yaml', '--time-scale', '50'] });
    const workers = [worker(dir, emulator)];
    const env: NodeJS.ProcessEnv = { ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key };
    const cli = async (args: readonly string[]): Promise<string> => (await promisify(execFile)(process.execPath, [main, ...args], { cwd: dir, env })).stdout;
    try {
      const before = Date.now();
      const run = await deflow(dir, emulator, [...RUN, '--queue', redis.url]).exit;
      const after = Date.now();
      expect(run.code, run.stderr).toBe(0);
      const [listed] = (JSON.parse(await cli(['status', '--json'])) as { runs: { run_id: string; started_at: string; finished_at: string }[] }).runs;
      for (const date of [listed!.started_at, listed!.finished_at]) {
        expect(Date.parse(date)).toBeGreaterThanOrEqual(before);
        expect(Date.parse(date)).toBeLessThanOrEqual(after);
      }
      const text = await cli(['status', listed!.run_id]);
      const line = /^started: (\S+), finished: (\S+) \(emulator time: started (\S+), finished (\S+)\)$/m.exec(text);
      expect(line, text).not.toBeNull();
      expect([line![1], line![2]]).toEqual([listed!.started_at, listed!.finished_at]);
      // Two chained jobs of 20 s each on the emulator's clock: its dates ran ahead of the real ones.
      expect(Date.parse(line![4]!)).toBeGreaterThan(after);
      const json = JSON.parse(await cli(['status', listed!.run_id, '--json'])) as { started_at: string; emulator_time: { finished_at: string } };
      expect(json.started_at).toBe(listed!.started_at);
      expect(Date.parse(json.emulator_time.finished_at)).toBeGreaterThan(after);
      // Asked of the queue directly, from a folder without the run's state: the same real dates.
      const elsewhere = await mkdtemp(join(tmpdir(), 'deflow-status-elsewhere-'));
      try {
        const { stdout } = await promisify(execFile)(process.execPath, [main, 'status', '--queue', redis.url, listed!.run_id], { cwd: elsewhere, env });
        const direct = /^started: (\S+), finished: (\S+) \(emulator time: started (\S+), finished (\S+)\)$/m.exec(stdout);
        expect(direct, stdout).not.toBeNull();
        for (const date of [direct![1]!, direct![2]!]) {
          expect(Date.parse(date)).toBeGreaterThanOrEqual(before);
          expect(Date.parse(date)).toBeLessThanOrEqual(after);
        }
        expect(Date.parse(direct![4]!)).toBeGreaterThan(after);
      } finally {
        await rm(elsewhere, { recursive: true, force: true });
      }
    } finally {
      await Promise.all(workers.map((w) => stopProcess(w.child)));
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('3 independent runs with --governor share one account without a 429', async () => {
    const dirs = await Promise.all([0, 1, 2].map((i) => workspace(8, `matrix-${i}`)));
    const emulator = await startEmulator(dirs[0]!);
    try {
      // The three workspaces hold the same clips: the service sees 3 × 16 equal jobs, on purpose.
      const exits = await Promise.all(dirs.map((dir) => deflow(dir, emulator, [...RUN, '--governor', redis.url]).exit));
      for (const exit of exits) expect(exit.code, exit.stderr).toBe(0);
      for (const dir of dirs) await expectOutputs(dir, 8);
      const seen = await submissions(emulator);
      expect(seen.jobs).toBe(48);
      expect(seen.http429).toBe(0);
    } finally {
      await emulator.stop();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    }
  });
});
