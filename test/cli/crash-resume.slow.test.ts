/**
 * The crash harness: the real built CLI (`node dist/bin/deflow.js run …`, the bundled bin users
 * run) against a standalone emulator process, killed with SIGKILL at seeded points (right after
 * the n-th record of a type via DEFLOW_TEST_CRASH_AFTER, or at a seeded random time), then run
 * again until its run finishes. Every kill point must have fired (the process died of SIGKILL there): a point
 * past the end of what is left would prove nothing. Items left unknown are resolved by asking
 * the service (`/_emulator/jobs`) whether it has a job deflow holds no request id for: when it
 * has none, `--resubmit-unknown` sends them again at no risk; when it has, they stay unknown.
 * Either way `/_emulator/jobs` must show no job created twice (0 duplicates, not "at most the
 * unknowns"), every output of an item not left unknown must be on disk exactly once, and every
 * journal must load. `DEFLOW_CRASH_POINTS=N` adds N more random kill points.
 */
import { existsSync } from 'node:fs';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/engine/journal/journal-replay.js';
import { listRuns, runPaths } from '../../src/engine/journal/state-dir.js';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { yaml } from '../engine/run-helpers.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { CRASH_HOOK } from '../helpers/crash-hook.js';
import { call } from '../helpers/emulator-http.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';

let cli: BuiltCli | undefined;
let main: string;

beforeAll(async () => {
  // Built aside (so that no other test's dist/ is touched), bundle included.
  cli = await buildCliAside('deflow-crash-build-');
  main = cli.main;
}, 180_000);

afterAll(async () => {
  await cli?.remove();
});

/** A kill point: after the n-th durable record of a type, or after a time (real ms from the spawn). */
type KillPoint = `${'run' | 'intent' | 'submitted' | 'status' | 'paid' | 'done' | 'skipped' | 'unknown' | 'end'}:${number}` | `time:${number}`;

/** Clips per scenario: 16 jobs, enough that every kill point is reached after the earlier ones. */
const CLIPS = 8;

/**
 * The seeded kill points: 20 exact ones (after intents and request ids among them) and 4 random
 * times, each reached by what the earlier kills leave, which the test asserts. The order makes
 * that hold: a new process learns the rate limits with one request alone, so `intent:1` leaves
 * exactly one item unknown; `submitted:k` leaves k jobs to poll, so `done:k` follows; a `done`
 * leaves its speech to send, so `intent:1` follows; every session that ends writes `end`.
 */
const SCENARIOS: readonly (readonly KillPoint[])[] = [
  ['intent:1', 'submitted:1', 'done:1', 'intent:1', 'end:1'],
  ['intent:1', 'submitted:2', 'done:2', 'intent:1', 'end:1'],
  ['intent:1', 'submitted:3', 'done:3', 'intent:1', 'end:1'],
  ['intent:1', 'submitted:4', 'done:2', 'intent:1', 'end:1'],
  // At the paid stage: the service charged, the result is not saved yet. A paid job is fetched
  // again by its request id and never paid again, so the next session's paid records are new jobs.
  ['paid:1', 'paid:2', 'end:1'],
  ['submitted:4', 'paid:3', 'end:1'],
  ...randomTimes(4, 1).map((t) => [t]),
  ...randomTimes(Number(process.env['DEFLOW_CRASH_POINTS'] ?? 0), 7).map((t) => [t]),
];

/** `n` kill times, seeded: between the CLI's start-up and the middle of a run on a slow emulator. */
function randomTimes(n: number, seed: number): KillPoint[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
  return Array.from({ length: n }, () => `time:${Math.round(300 + next() * 1200)}` as KillPoint);
}


/**
 * A standalone `deflow emulator` process: short jobs, generous rate limits. `timeScale` 4 makes
 * a run last several real seconds, so that a kill at a random time finds it still running. The
 * exact kill points run at time scale 1: deflow follows the emulator's clock, and the order they
 * rely on (submissions answered before any job is done, a session's resumed jobs done before the
 * speech it sends) needs jobs that take longer than an upload on a busy machine.
 */
async function startEmulator(dir: string, timeScale: number): Promise<EmulatorProcess> {
  const rate = '{ rpm: 600, rpd: null }';
  await writeFile(
    join(dir, 'emulator.yaml'),
    yaml(`time_scale: ${timeScale}`, 'balance: 1000', 'jobs: { duration_ms: 3000, jitter: 0.5 }', `rate_limits: { endpoints: { "audio/transcriptions": ${rate}, "audio/speech": ${rate} }, jobs_status: null }`),
  );
  return startEmulatorProcess(main, dir);
}

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** Runs `deflow ARGS` in `dir`, killed at `point` when given. */
async function deflow(dir: string, emulator: EmulatorProcess, args: readonly string[], point?: KillPoint): Promise<Exit> {
  const env: NodeJS.ProcessEnv = { ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key, DEFLOW_TEST_CRASH_AFTER: '' };
  if (point !== undefined && !point.startsWith('time:')) env['DEFLOW_TEST_CRASH_AFTER'] = point;
  const child = spawn(process.execPath, ['--import', CRASH_HOOK, main, ...args], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = point?.startsWith('time:') ? setTimeout(() => child.kill('SIGKILL'), Number(point.slice(5))) : undefined;
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code, signal, stderr };
}

interface StatusJson {
  readonly status: string;
  readonly unknowns: readonly { readonly node: string }[];
}

async function status(dir: string): Promise<StatusJson> {
  const env = { ...process.env, DEFLOW_TEST_CRASH_AFTER: '' };
  const { stdout } = await promisify(execFile)(process.execPath, [main, 'status', 'workflow.yaml', '--json'], { cwd: dir, env });
  return JSON.parse(stdout) as StatusJson;
}

const RUN = ['run', 'workflow.yaml', '--quiet'];

/** Request ids deflow journalled (accepted submissions), over every run in the state folder. */
async function journalledRequestIds(stateDir: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const run of await listRuns(stateDir)) {
    // A run killed after its folder was made and before its journal was: nothing journalled.
    const read = await readJournal(runPaths(stateDir, run.runId).journal).catch((error: { code?: string }) => {
      if (error.code === 'E_JOURNAL_MISSING') return { records: [] };
      throw error;
    });
    for (const record of read.records) if (record.t === 'submitted' || (record.t === 'done' && record.request_id)) ids.add(record.request_id!);
  }
  return ids;
}

interface EmulatorJob {
  readonly request_id: string;
  readonly task: string;
  readonly params_digest: string;
}

describe('kill -9 and resume, with the built CLI against a standalone emulator', () => {
  it.concurrent.each(SCENARIOS.map((points, i) => [i, points] as const))('scenario %i: every kill point of %j fires; run again until done; 0 jobs created twice', async (i, points) => {
    // Not useWorkspace: its clean-up is tied to the current test, which concurrent tests do not have.
    const dir = await mkdtemp(join(tmpdir(), 'deflow-crash-'));
    await mkdir(join(dir, 'clips'));
    for (const [path, content] of Object.entries({ 'workflow.yaml': CHAIN, ...clips(CLIPS, i * 10) })) await writeFile(join(dir, path), content);
    const timed = points.some((p) => p.startsWith('time:'));
    const emulator = await startEmulator(dir, timed ? 4 : 1);
    try {
      for (const point of points) {
        const exit = await deflow(dir, emulator, RUN, point);
        expect(exit.signal, `kill point ${point} did not fire (exit ${exit.code}):\n${exit.stderr}`).toBe('SIGKILL');
      }
      let final: Exit | undefined;
      for (let attempt = 0; attempt < 4 && final?.code !== 0 && final?.code !== 1; attempt++) final = await deflow(dir, emulator, RUN);
      expect([0, 1], final?.stderr).toContain(final?.code);
      const stateDir = join(dir, '.deflow');
      const unknown = new Set((await status(dir)).unknowns.map((u) => u.node));
      const jobs = async () => (await call(emulator, 'GET', '/_emulator/jobs')).body as EmulatorJob[];
      // Resolve the unknowns with the service: jobs it created that deflow holds no request id for.
      const known = await journalledRequestIds(stateDir);
      const orphans = (await jobs()).filter((job) => !known.has(job.request_id));
      expect(orphans.length).toBeLessThanOrEqual(unknown.size);
      if (unknown.size > 0 && orphans.length === 0) {
        // The service never got them: sending them again cannot pay twice.
        expect((await deflow(dir, emulator, [...RUN, '--resubmit-unknown'])).code).toBe(0);
        unknown.clear();
      }

      const counts = new Map<string, number>();
      for (const job of await jobs()) counts.set(`${job.task} ${job.params_digest}`, (counts.get(`${job.task} ${job.params_digest}`) ?? 0) + 1);
      const duplicates = [...counts.values()].reduce((n, c) => n + c - 1, 0);
      expect(duplicates).toBe(0);
      // Saved once: no run journals two results for one paid job.
      for (const run of await listRuns(stateDir)) {
        const journal = runPaths(stateDir, run.runId).journal;
        if (!existsSync(journal)) continue;
        const saves = new Map<string, number>();
        for (const record of (await readJournal(journal)).records) if (record.t === 'done' && record.request_id) saves.set(record.request_id, (saves.get(record.request_id) ?? 0) + 1);
        expect([...saves].filter(([, n]) => n > 1)).toEqual([]);
      }

      // Outputs: every clip's transcript and speech, apart from clips whose items are still unknown.
      const all = Array.from({ length: CLIPS }, (_, k) => i * 10 + k);
      const lost = new Set([...unknown].map((node) => Number(/c(\d+)\.mp3/.exec(node)?.[1] ?? Number.NaN)));
      const expected = all.filter((n) => !lost.has(n)).flatMap((n) => [`c${n}.mp3`, `c${n}.txt`]).sort();
      // A kill -9 in the middle of a save leaves the atomic writer's hidden temporary file
      // (`.<8 hex>.<pid>.<8 hex>.part`, removed by the next run since it names a dead writer); never a visible file.
      const written = (await readdir(join(dir, 'out')).catch(() => [] as string[])).filter((name) => !/^\.[0-9a-f]{8}\.\d+\.[0-9a-f]{8}\.part$/.test(name)).sort();
      if (unknown.size === 0) expect(written).toEqual(expected);
      else {
        expect(lost.has(Number.NaN), `unknown items not named by their clip: ${[...unknown].join(', ')}`).toBe(false);
        for (const file of expected) expect(written).toContain(file);
        for (const file of written) expect(all.flatMap((n) => [`c${n}.mp3`, `c${n}.txt`])).toContain(file);
      }
      // A kill between run.json and the journal's creation leaves a run with no journal (nothing was
      // sent; the next session starts its own run): every journal that exists reads back.
      for (const run of await listRuns(stateDir)) {
        const journal = runPaths(stateDir, run.runId).journal;
        if (existsSync(journal)) await expect(readJournal(journal)).resolves.toBeDefined();
      }
    } finally {
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('has at least 20 seeded kill points', () => {
    expect(SCENARIOS.flat().length).toBeGreaterThanOrEqual(20);
  });
});
