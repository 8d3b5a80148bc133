/**
 * Overlapping runs of one workflow, with the built CLI (`node dist/bin/deflow.js`, the bundled
 * bin) against a standalone emulator process: two `deflow run` started at the same moment, a
 * `--wait-lock` that waits for the first, a holder killed with SIGKILL and not reaped (a zombie,
 * as in a container without an init), a lock naming a pid since reused by another program, a
 * lock held on another host, and two queue coordinators of one workflow (a private redis-server).
 * Whatever the overlap, the emulator must create each job once: `/_emulator/jobs` has exactly the
 * workflow's jobs, and the process that does not run says why and exits 2.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { yaml } from '../engine/run-helpers.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { call } from '../helpers/emulator-http.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';

/** 4 clips: 4 transcriptions, then 4 speeches. */
const CLIPS = 4;
const JOBS = 2 * CLIPS;

let cli: BuiltCli | undefined;
let main: string;
let emulator: EmulatorProcess;
let emulatorDir: string;
let redis: TestRedis | undefined;
const strays: ChildProcess[] = [];

beforeAll(async () => {
  cli = await buildCliAside('deflow-lock-build-');
  main = cli.main;
  emulatorDir = await mkdtemp(join(tmpdir(), 'deflow-lock-emulator-'));
  emulator = await startEmulator(emulatorDir);
}, 240_000);

/** Processes a test left running (it failed half-way) would go on creating jobs during the next one. */
afterEach(() => {
  for (const child of strays.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

afterAll(async () => {
  await emulator?.stop();
  await redis?.stop();
  await cli?.remove();
  if (emulatorDir) await rm(emulatorDir, { recursive: true, force: true });
});


/** Jobs of 1.5 s (time scale 1: deflow follows the emulator's clock), generous rate limits. */
async function startEmulator(dir: string): Promise<EmulatorProcess> {
  const rate = '{ rpm: 600, rpd: null }';
  await writeFile(
    join(dir, 'emulator.yaml'),
    yaml('balance: 1000', 'jobs: { duration_ms: 1500, jitter: 0.3 }', `rate_limits: { endpoints: { "audio/transcriptions": ${rate}, "audio/speech": ${rate} }, jobs_status: null }`),
  );
  return startEmulatorProcess(main, dir);
}

const env = (): NodeJS.ProcessEnv => ({ ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key, DEFLOW_TEST_CRASH_AFTER: '' });

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

interface Proc {
  readonly child: ChildProcess;
  readonly exit: Promise<Exit>;
  /** Everything written to stderr so far. */
  stderr(): string;
}

function deflow(dir: string, args: readonly string[]): Proc {
  const child = spawn(process.execPath, [main, ...args], { cwd: dir, env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
  strays.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exit = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null, stderr }));
  return { child, exit, stderr: () => stderr };
}

/**
 * `deflow ARGS` started by a parent that never reaps it (the shell execs `sleep`, which waits for
 * nobody): killed, it stays a zombie, as under a container's pid 1 that is not an init.
 */
async function deflowUnreaped(dir: string, args: readonly string[], log: string): Promise<{ pid: number; parent: ChildProcess }> {
  const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
  const command = `${[process.execPath, main, ...args].map(quote).join(' ')} >/dev/null 2>>${quote(log)} & echo $!; exec sleep 600`;
  const parent = spawn('sh', ['-c', command], { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'ignore'] });
  strays.push(parent);
  const [chunk] = (await once(parent.stdout, 'data')) as [Buffer];
  return { pid: Number(chunk.toString('utf8').trim()), parent };
}

/** Field `n` (1-based, as proc(5) numbers them) of `/proc/<pid>/stat`. */
function statField(pid: number, n: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[n - 3]!;
}

async function workspace(tag: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `deflow-lock-${tag}-`));
  await mkdir(join(dir, 'clips'));
  // A name of its own per workspace: the same clips in another folder are other jobs for nobody.
  for (const [path, content] of Object.entries({ 'workflow.yaml': CHAIN.replace('name: durable', `name: ${tag}`), ...clips(CLIPS) })) await writeFile(join(dir, path), content);
  return dir;
}

interface EmulatorJob {
  readonly request_id: string;
  readonly task: string;
  readonly params_digest: string;
}

async function jobs(): Promise<EmulatorJob[]> {
  return (await call(emulator, 'GET', '/_emulator/jobs')).body as EmulatorJob[];
}

/** Jobs created since `before`, and how many of them repeat a job (same task and parameters) created since then. */
async function jobsSince(before: number): Promise<{ created: number; duplicates: number }> {
  const list = (await jobs()).slice(before);
  const counts = new Map<string, number>();
  for (const job of list) counts.set(`${job.task} ${job.params_digest}`, (counts.get(`${job.task} ${job.params_digest}`) ?? 0) + 1);
  return { created: list.length, duplicates: [...counts.values()].reduce((sum, c) => sum + c - 1, 0) };
}

/** Resolves once the emulator has created more than `count` jobs. */
async function untilJobs(count: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await jobs()).length <= count) {
    if (Date.now() > deadline) throw new Error(`no job past ${count} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Resolves once a run in `dir` has journalled a submission (it holds the state folder and has paid for something). */
async function untilSubmitted(dir: string, timeoutMs = 30_000): Promise<void> {
  const runs = join(dir, '.deflow', 'runs');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const names = await readdir(runs).catch(() => [] as string[]);
    const journals = await Promise.all(names.map((name) => readFile(join(runs, name, 'journal.jsonl'), 'utf8').catch(() => '')));
    if (journals.some((text) => text.includes('"t":"submitted"'))) return;
    if (Date.now() > deadline) throw new Error(`nothing submitted in ${dir} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const HOLDS = (stateDir: string, pid: number): RegExp => new RegExp(`another deflow run \\(pid ${pid}, started \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z\\) holds ${stateDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
const RUN = ['run', 'workflow.yaml', '--quiet'];

describe('two runs of one workflow at the same moment (built CLI, standalone emulator)', () => {
  it('10 tries: exactly one runs and submits every job once; the other exits 2 naming the holder', async () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const dir = await workspace(`together${attempt}`);
      try {
        const before = (await jobs()).length;
        const first = deflow(dir, RUN);
        const second = deflow(dir, RUN);
        const exits = await Promise.all([first.exit, second.exit]);
        const codes = exits.map((exit) => exit.code).sort();
        expect(codes, `try ${attempt}: ${exits.map((e) => e.stderr).join('\n---\n')}`).toEqual([0, 2]);
        const [winner, loser] = exits[0].code === 0 ? [first, second] : [second, first];
        expect((await loser.exit).stderr).toMatch(HOLDS(join(dir, '.deflow'), winner.child.pid!));
        expect(await jobsSince(before)).toEqual({ created: JOBS, duplicates: 0 });
        expect((await readdir(join(dir, '.deflow', 'runs'))).length).toBe(1);
        expect((await readdir(join(dir, 'out'))).sort()).toHaveLength(JOBS);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }, 240_000);

  it('--wait-lock waits for the holder; killed, its run is resumed by the waiter with nothing paid twice', async () => {
    const dir = await workspace('waitkill');
    try {
      const before = (await jobs()).length;
      const first = deflow(dir, RUN);
      await untilSubmitted(dir);
      // Not --quiet: it says which run it resumes.
      const waiter = deflow(dir, ['run', 'workflow.yaml', '--wait-lock']);
      const deadline = Date.now() + 30_000;
      while (!waiter.stderr().includes('waiting for another deflow run') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(waiter.stderr()).toMatch(new RegExp(`^deflow: waiting for another deflow run \\(pid ${first.child.pid}, started \\S+\\) to release ${join(dir, '.deflow')}`));
      const runs = await readdir(join(dir, '.deflow', 'runs'));
      first.child.kill('SIGKILL');
      expect((await first.exit).signal).toBe('SIGKILL');
      const waited = await waiter.exit;
      expect(waited.code, waited.stderr).toBeOneOf([0, 1]);
      expect(waited.stderr).toContain(`resuming run ${runs[0]}`);
      expect(await readdir(join(dir, '.deflow', 'runs'))).toEqual(runs);
      expect((await jobsSince(before)).duplicates).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('--wait-lock started with the first: waits, then runs with nothing to pay; --wait-lock=DURATION gives up with exit 2', async () => {
    const dir = await workspace('waitdone');
    try {
      const before = (await jobs()).length;
      const first = deflow(dir, RUN);
      await untilSubmitted(dir);
      const impatient = await deflow(dir, [...RUN, '--wait-lock=1s']).exit;
      expect(impatient.code, impatient.stderr).toBe(2);
      expect(impatient.stderr).toMatch(HOLDS(join(dir, '.deflow'), first.child.pid!));
      expect(impatient.stderr).toContain('(waited 1 s)');
      const patient = deflow(dir, [...RUN, '--wait-lock=5m']);
      const [a, b] = await Promise.all([first.exit, patient.exit]);
      expect([a.code, b.code], `${a.stderr}\n---\n${b.stderr}`).toEqual([0, 0]);
      expect(b.stderr).toContain('waiting for another deflow run');
      expect(await jobsSince(before)).toEqual({ created: JOBS, duplicates: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a lock whose holder is gone is taken over; one on another host is not', () => {
  it('kill -9 and an immediate rerun, 5 times, the killed run not yet reaped (a zombie): never refused, nothing paid twice', async () => {
    const dir = await workspace('zombie');
    const log = join(dir, 'deflow.log');
    try {
      const before = (await jobs()).length;
      for (let kill = 0; kill < 5; kill++) {
        const { pid } = await deflowUnreaped(dir, RUN, log);
        // Killed once it has sent something, or after 1.5 s when nothing is left to send.
        await untilJobs((await jobs()).length, 1500).catch(() => {});
        process.kill(pid, 'SIGKILL');
        while (statField(pid, 3) !== 'Z') await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const final = await deflow(dir, RUN).exit;
      const logged = readFileSync(log, 'utf8');
      expect(logged).not.toMatch(/holds|locked/);
      expect(final.stderr).not.toMatch(/holds|locked/);
      expect(final.code, final.stderr).toBeOneOf([0, 1]);
      expect((await jobsSince(before)).duplicates).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('a lock naming a live pid of another program (another start time) is taken over and the run resumed', async () => {
    const dir = await workspace('reused');
    const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
    strays.push(stranger);
    await once(stranger, 'spawn');
    try {
      const before = (await jobs()).length;
      const first = deflow(dir, RUN);
      await untilSubmitted(dir);
      first.child.kill('SIGKILL');
      await first.exit;
      // The killed run's pid now belongs to `sleep` (as after a pid wrapped around): its lock files say so.
      const stateDir = join(dir, '.deflow');
      const [runId] = await readdir(join(stateDir, 'runs'));
      const record = `${JSON.stringify({
        pid: stranger.pid,
        hostname: hostname(),
        boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
        start_time: String(Number(statField(stranger.pid!, 22)) - 100),
        acquired_at: '2026-11-27T22:00:00.000Z',
        token: 'feed',
      })}\n`;
      await writeFile(join(stateDir, 'session.lock'), record);
      await writeFile(join(stateDir, 'runs', runId!, 'journal.jsonl.lock'), record);
      const again = await deflow(dir, ['run', 'workflow.yaml']).exit;
      expect(again.stderr).not.toMatch(/holds|locked/);
      expect(again.code, again.stderr).toBeOneOf([0, 1]);
      expect(again.stderr).toContain(`resuming run ${runId}`);
      expect(await readdir(join(stateDir, 'runs'))).toEqual([runId]);
      expect((await jobsSince(before)).duplicates).toBe(0);
    } finally {
      stranger.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a lock held on another host is reported, not stolen: exit 2, nothing submitted', async () => {
    const dir = await workspace('foreign');
    try {
      const stateDir = join(dir, '.deflow');
      await mkdir(stateDir);
      const record = `${JSON.stringify({ pid: 4242, hostname: 'ci-runner-9', boot_id: null, start_time: null, acquired_at: '2026-11-27T21:00:00.000Z', token: 'beef' })}\n`;
      await writeFile(join(stateDir, 'session.lock'), record);
      const before = (await jobs()).length;
      const refused = await deflow(dir, RUN).exit;
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(
        `deflow: another deflow run (pid 4242 on ci-runner-9, started 2026-11-27T21:00:00.000Z) holds ${stateDir}; ` +
          `it runs on host ci-runner-9, where this host cannot check it: if no deflow runs there any more, delete ${join(stateDir, 'session.lock')}`,
      );
      expect(readFileSync(join(stateDir, 'session.lock'), 'utf8')).toBe(record);
      expect((await jobsSince(before)).created).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('queue mode: one coordinator per workflow', () => {
  it('a second coordinator of the same workflow is refused (exit 2); once the first is killed, the next one takes over at once', async () => {
    redis = await startTestRedis();
    const dir = await workspace('queue');
    try {
      const args = ['run', 'workflow.yaml', '--queue', redis.url];
      // No workers: the coordinator enqueues and waits.
      const first = deflow(dir, args);
      const deadline = Date.now() + 60_000;
      while (!/starting run (\S+)/.test(first.stderr()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      const runId = /starting run (\S+)/.exec(first.stderr())?.[1];
      expect(runId, first.stderr()).toBeDefined();
      const second = await deflow(dir, args).exit;
      expect(second.code, second.stderr).toBe(2);
      expect(second.stderr).toMatch(new RegExp(`another deflow run \\(pid ${first.child.pid}, started \\S+\\) holds the queue's runs of ${join(dir, 'workflow.yaml')}`));
      first.child.kill('SIGKILL');
      await first.exit;
      const third = deflow(dir, args);
      const until = Date.now() + 60_000;
      while (!/resuming run|holds/.test(third.stderr()) && third.child.exitCode === null && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(third.stderr()).toContain(`resuming run ${runId}`);
      third.child.kill('SIGINT');
      await third.exit;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
