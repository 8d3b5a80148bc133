/**
 * Reports add up across sessions: the built CLI against a standalone emulator process, killed
 * with SIGKILL twice (right after a job's `done` record, through the test-only crash hook) and
 * run a third time to the end. The run's reported total, in report.json and `deflow status`,
 * must equal what the emulator charged (its balance before and after) to the micro-dollar.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { CHAIN } from '../engine/journal/durable-helpers.js';
import { yaml } from '../engine/run-helpers.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { CRASH_HOOK } from '../helpers/crash-hook.js';
import { call } from '../helpers/emulator-http.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';

let cli: BuiltCli;

beforeAll(async () => {
  cli = await buildCliAside('deflow-cost-build-');
}, 180_000);

afterAll(async () => {
  await cli?.remove();
});


async function startEmulator(dir: string): Promise<EmulatorProcess> {
  await writeFile(join(dir, 'emulator.yaml'), yaml('time_scale: 20', 'balance: 100', 'jobs: { duration_ms: 3000 }', 'rate_limits: { jobs_status: null }'));
  return startEmulatorProcess(cli.main, dir);
}

/** `deflow ARGS` in `dir`; with `crashAfter` (`done:2`) it kills itself right after that record. */
async function deflow(dir: string, emulator: EmulatorProcess, args: readonly string[], crashAfter = ''): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  const env = { ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key, DEFLOW_TEST_CRASH_AFTER: crashAfter };
  const child = spawn(process.execPath, ['--import', CRASH_HOOK, cli.main, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  return { code, signal, stdout, stderr };
}

async function balance(emulator: EmulatorProcess): Promise<number> {
  const body = (await call(emulator, 'GET', '/api/v2/account/balance', { key: emulator.key })).body as { balance?: number; data?: { balance: number } };
  return body.balance ?? body.data!.balance;
}

describe('the cost of a run killed and resumed twice', () => {
  it('report.json and deflow status report a total equal to the balance delta, session by session', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-cost-resume-'));
    await mkdir(join(dir, 'clips'));
    await writeFile(join(dir, 'workflow.yaml'), CHAIN);
    for (const [i, seconds] of [20, 35, 50].entries()) await writeFile(join(dir, 'clips', `c${i}.mp3`), makeMp3(seconds));
    const emulator = await startEmulator(dir);
    try {
      const before = await balance(emulator);
      // One job at a time: when a `done` record is durable, no other submission is between its intent and its answer.
      const RUN = ['run', 'workflow.yaml', '--quiet', '--concurrency', '1', '--max-cost', '5'];
      expect((await deflow(dir, emulator, RUN, 'done:2')).signal).toBe('SIGKILL');
      expect((await deflow(dir, emulator, RUN, 'done:2')).signal).toBe('SIGKILL');
      const last = await deflow(dir, emulator, RUN);
      expect(last.code, last.stderr).toBe(0);
      const delta = Math.round((before - (await balance(emulator))) * 1e6) / 1e6;
      expect(delta).toBeGreaterThan(0);

      const [runId] = await readdir(join(dir, '.deflow', 'runs'));
      const report = JSON.parse(await readFile(join(dir, '.deflow', 'runs', runId!, 'report.json'), 'utf8'));
      expect(report.totals.cost_actual).toBe(delta);
      expect(report.invocations.map((i: { status: string }) => i.status)).toEqual(['crashed', 'crashed', 'done']);
      expect(report.invocations.every((i: { cost_actual: number }) => i.cost_actual > 0)).toBe(true);
      expect(Math.round(report.invocations.reduce((s: number, i: { cost_actual: number }) => s + i.cost_actual, 0) * 1e6) / 1e6).toBe(delta);
      expect(report.steps.every((s: { cost_actual: number }) => s.cost_actual > 0)).toBe(true);

      const status = JSON.parse((await promisify(execFile)(process.execPath, [cli.main, 'status', runId!, '--json'], { cwd: dir })).stdout);
      expect(status.cost.actual).toBe(delta);
      expect(status.cost.invocations.map((i: { cost_actual: number }) => i.cost_actual)).toEqual(report.invocations.map((i: { cost_actual: number }) => i.cost_actual));
      const jobs = (await call(emulator, 'GET', '/_emulator/jobs')).body as { params_digest: string }[];
      expect(new Set(jobs.map((j) => j.params_digest)).size).toBe(jobs.length);
    } finally {
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
