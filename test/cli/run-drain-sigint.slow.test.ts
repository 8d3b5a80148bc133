/**
 * `--drain` end to end: the built CLI with `--webhook-url` against a standalone emulator, a
 * real SIGINT while jobs given the URL are in flight. With `--drain` the session waits for them
 * and no delivery fails (the emulator's `/_emulator/stats`); without it the notice says how many
 * jobs and deliveries, and that many deliveries fail once the session is gone.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { WebhookStats } from '../../src/emulator/http/introspection.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { call } from '../helpers/emulator-http.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';
import { freePort } from '../helpers/webhook-receiver.js';

let cli: BuiltCli;
beforeAll(async () => {
  cli = await buildCliAside('deflow-drain-build-');
}, 240_000);
afterAll(async () => {
  await cli?.remove();
});

const WORKFLOW = yaml(
  'version: 1',
  'name: drain-sigint',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "clips/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false, return_result_in_response: true }',
);
/** Jobs of 40 s at time scale 20 (2 s real): in flight well past Ctrl-C's 15 s (0.75 s real) of polling; one attempt per delivery. */
const EMULATOR = yaml('time_scale: 20', 'webhooks: { allow_http: true, retry_schedule_s: [0] }', 'jobs: { duration_ms: 40000, scale_by_input: false }');
const JOBS = 4;

/** `deflow run` with webhooks, SIGINT once all its jobs were submitted; its exit code and stderr. */
async function interruptedRun(dir: string, emulator: EmulatorProcess, extra: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const port = await freePort();
  const args = ['run', 'workflow.yaml', '--webhook-url', `http://127.0.0.1:${port}/hooks`, '--webhook-listen', `127.0.0.1:${port}`, '--json', '--report', 'run.json', ...extra];
  const child = spawn(process.execPath, [cli.main, ...args], {
    cwd: dir,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  let submitted = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    const lines = stdout.split('\n');
    stdout = lines.pop()!;
    for (const line of lines) if (line.includes('"item-submitted"') && ++submitted === JOBS) child.kill('SIGINT');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(submitted, stderr).toBe(JOBS);
  return { code, stderr };
}

/** The emulator's webhook figures once every job ended and every delivery settled. */
async function settledWebhooks(emulator: EmulatorProcess): Promise<WebhookStats> {
  const stats = async (): Promise<WebhookStats> => ((await call(emulator, 'GET', '/_emulator/stats')).body as { webhooks: WebhookStats }).webhooks;
  await vi.waitFor(
    async () => {
      const jobs = (await call(emulator, 'GET', '/_emulator/jobs')).body as { status: string }[];
      expect(jobs.length === JOBS && jobs.every((j) => j.status === 'done') && (await stats()).pending === 0).toBe(true);
    },
    { timeout: 30_000, interval: 100 },
  );
  return stats();
}

async function setUp(): Promise<{ dir: string; emulator: EmulatorProcess }> {
  const clips = Object.fromEntries(Array.from({ length: JOBS }, (_, i) => [`clips/c${i}.mp3`, makeMp3(2)]));
  const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW, 'emulator.yaml': EMULATOR, ...clips });
  return { dir, emulator: await startEmulatorProcess(cli.main, dir, { stopAfterTest: true }) };
}

describe('deflow run --webhook-url and a real Ctrl-C', () => {
  it('with --drain the session waits for its jobs in flight: every delivery reaches it, 0 fail', { timeout: 120_000 }, async () => {
    const { dir, emulator } = await setUp();
    const run = await interruptedRun(dir, emulator, ['--drain']);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain(`deflow: ${JOBS} jobs in flight were given this session's webhook URL: waiting for them to end (--drain)`);
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')) as { totals: { done: number } };
    expect(report.totals.done).toBe(JOBS);
    const webhooks = await settledWebhooks(emulator);
    expect(webhooks).toMatchObject({ delivered: 2 * JOBS, failed: 0, consecutive_failures: 0, breaker_trips: 0, breaker_open: false });
  });

  it('without --drain the notice states how many jobs and deliveries, and those deliveries fail', { timeout: 120_000 }, async () => {
    const { dir, emulator } = await setUp();
    const run = await interruptedRun(dir, emulator, []);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain(`deflow: ${JOBS} jobs in flight were given this session's webhook URL: once this session ends their deliveries (up to ${2 * JOBS}, each retried for about 23 h) fail`);
    const webhooks = await settledWebhooks(emulator);
    // Every job's final delivery fails (its processing one may have come while the session was up): as many as the notice said at most, and at least one per job.
    expect(webhooks.failed).toBeGreaterThanOrEqual(JOBS);
    expect(webhooks.failed).toBeLessThanOrEqual(2 * JOBS);
    expect(webhooks.delivered + webhooks.failed).toBe(2 * JOBS);
    expect(webhooks.consecutive_failures).toBe(webhooks.failed);
  });
});
