/**
 * "Paid means kept", as a user meets it: the built CLI (`node dist/bin/deflow.js`) against a
 * standalone `deflow emulator` process, the service's own job list (`/_emulator/jobs`) as the
 * judge of what was created and charged.
 *
 * - A job slower than its step's `timeout` ends `timed-out` with its request_id (events,
 *   report.json, JUnit, `deflow status`); the job goes on and is charged at the service; the
 *   next run polls it and adopts its result (saved, cached, counted in spend), never submits it
 *   again unless `--resubmit-timed-out`. With `retries: 2` the retries poll the same job.
 * - A result paid for and not saved (a cut download) and then fetched again by a later run
 *   enters the result cache: a fresh run of the workflow pays nothing more.
 * - The summary line, report.json, JUnit, the GitHub step summary and the HTML report state one
 *   spend figure, equal to what the service charged, to the micro-dollar (a synchronous task's
 *   charge, which its answer does not state, included).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCost } from '../../src/report/index.js';
import { yaml } from '../engine/run-helpers.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { useFaultProxy } from '../helpers/fault-proxy.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';

let cli: BuiltCli | undefined;

beforeAll(async () => {
  cli = await buildCliAside('deflow-kept-build-');
}, 240_000);

afterAll(async () => {
  await cli?.remove();
});


/** A standalone emulator whose jobs all take `durationMs` (no spread), generous rate limits. */
async function startEmulator(dir: string, durationMs: number): Promise<EmulatorProcess> {
  await writeFile(join(dir, 'emulator.yaml'), yaml('balance: 100', `jobs: { duration_ms: ${durationMs}, jitter: 0, scale_by_input: false }`, 'rate_limits: { endpoints: { "images/generations": { rpm: 600, rpd: null } }, jobs_status: null }'));
  return startEmulatorProcess(cli!.main, dir);
}

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `deflow ARGS` in `dir` against `baseUrl` (the emulator, or a fault proxy in front of it). */
async function deflow(dir: string, emulator: EmulatorProcess, args: readonly string[], env: Record<string, string> = {}, baseUrl = emulator.url): Promise<Exit> {
  const child = spawn(process.execPath, [cli!.main, ...args], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, DEAPI_BASE_URL: baseUrl, DEAPI_API_KEY: emulator.key, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

interface ServiceJob {
  readonly request_id: string;
  readonly status: string;
  readonly price: number;
  readonly params_digest: string;
}

async function serviceJobs(emulator: EmulatorProcess): Promise<ServiceJob[]> {
  return (await (await fetch(`${emulator.url}/_emulator/jobs`)).json()) as ServiceJob[];
}

/** What the service charged so far, in micro-dollars: the price of every job that ended done. */
async function chargedMicros(emulator: EmulatorProcess): Promise<number> {
  return (await serviceJobs(emulator)).filter((j) => j.status === 'done').reduce((sum, j) => sum + Math.round(j.price * 1e6), 0);
}

/** Waits (real time) until the service has no job still running. */
async function allJobsEnded(emulator: EmulatorProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await serviceJobs(emulator)).every((j) => j.status === 'done' || j.status === 'error')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the emulator still runs jobs after 20 s');
}

/** The spend the final summary line states (`… · $0.00272 spent`). */
function summarySpend(stderr: string): string {
  const line = stderr.split('\n').find((l) => /\((exit \d+)\)/.test(l) && / spent/.test(l));
  expect(line, stderr).toBeDefined();
  return /(\$[\d.]+|—) spent/.exec(line!)![1]!;
}

/** Every figure of the run's spend, as micro-dollars, from each output. */
async function spendEverywhere(dir: string, run: Exit): Promise<{ line: string; report: number; junit: number; summary: string; html: string }> {
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { totals: { cost_actual: number } };
  const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
  const summary = await readFile(join(dir, 'step-summary.md'), 'utf8');
  const html = await readFile(join(dir, 'report.html'), 'utf8');
  return {
    line: summarySpend(run.stderr),
    report: Math.round(report.totals.cost_actual * 1e6),
    junit: Math.round(Number(/name="deflow\.run\.cost_actual" value="([\d.]+)"/.exec(junit)![1]) * 1e6),
    summary: /(\$[\d.]+) spent/.exec(summary.split('\n').filter((l) => / spent/.test(l)).at(-1)!)![1]!,
    html: /data-total="spent"><b>([^<]+)<\/b>/.exec(html)![1]!,
  };
}

const OUTPUTS = ['--report', 'report.json', '--junit', 'junit.xml', '--html', 'report.html'];

/** `deflow run` with every output, the GitHub step summary included (each run starts a fresh one). */
async function runWithOutputs(dir: string, emulator: EmulatorProcess, extra: readonly string[] = [], baseUrl?: string): Promise<Exit> {
  await writeFile(join(dir, 'step-summary.md'), '');
  return deflow(dir, emulator, ['run', 'workflow.yaml', ...OUTPUTS, ...extra], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'step-summary.md') }, baseUrl);
}

/** The spend stated everywhere equals `micros` (the service's charges for the jobs of the run). */
async function expectOneSpend(dir: string, run: Exit, micros: number): Promise<void> {
  const stated = await spendEverywhere(dir, run);
  const text = formatCost(micros / 1e6);
  expect(stated).toEqual({ line: text, report: micros, junit: micros, summary: text, html: text });
}

function workflow(timeout: string, retries: number, prompts: readonly string[]): string {
  return yaml(
    'version: 1',
    'name: slow-images',
    'steps:',
    '  paint:',
    '    task: image.generate',
    `    for_each: { items: ${JSON.stringify(prompts)} }`,
    `    timeout: ${timeout}`,
    `    retries: ${retries}`,
    '    with: { prompt: "${{ item.value }}", model: Flux1schnell, width: 512, height: 512, steps: 4, seed: 7 }',
    '    save: "paint-${{ item.index }}.png"',
  );
}

interface Events {
  readonly all: Record<string, unknown>[];
  of(type: string): Record<string, unknown>[];
}

function events(stdout: string): Events {
  const all = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { all, of: (type) => all.filter((e) => e['type'] === type) };
}

/** A fresh folder with `files`, removed after the test. */
async function workspace(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'deflow-kept-'));
  for (const [path, content] of Object.entries(files)) await writeFile(join(dir, path), content);
  return dir;
}

describe('paid means kept, through the built CLI against a standalone emulator', () => {
  it('a 4 s job with timeout: 2s and retries: 0 ends timed-out with its request_id everywhere; the next run adopts it (saved, charged once, counted in spend); a fresh run pays nothing', async () => {
    const dir = await workspace({ 'workflow.yaml': workflow('2s', 0, ['a red kite', 'a blue kite']) });
    const emulator = await startEmulator(dir, 4000);
    try {
      const first = await runWithOutputs(dir, emulator, ['--json']);
      expect(first.code, first.stderr).toBe(1);
      const jobs = await serviceJobs(emulator);
      expect(jobs).toHaveLength(2);
      const ids = new Set(jobs.map((j) => j.request_id));
      // Events: each item timed out with its job named; nothing was failed or retried.
      const timedOut = events(first.stdout).of('item-timed-out');
      expect(new Set(timedOut.map((e) => e['request_id']))).toEqual(ids);
      expect(timedOut.every((e) => (e['error'] as { code: string }).code === 'E_JOB_TIMEOUT')).toBe(true);
      expect(events(first.stdout).of('item-failed')).toEqual([]);
      expect(events(first.stdout).of('run-finished')[0]).toMatchObject({ exit_code: 1, counts: { timed_out: 2, failed: 0 } });
      // report.json, JUnit, deflow status.
      const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
      expect(report.totals).toMatchObject({ timed_out: 2, failed: 2 });
      expect(new Set(report.steps[0].items.map((i: { status: string; request_id: string }) => `${i.status} ${i.request_id}`))).toEqual(new Set([...ids].map((id) => `timed-out ${id}`)));
      const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
      expect(junit).toContain('type="E_JOB_TIMEOUT"');
      expect(junit.match(/state: timed out/g)).toHaveLength(2);
      const status = JSON.parse((await deflow(dir, emulator, ['status', 'workflow.yaml', '--json'])).stdout);
      expect(status.steps[0]).toMatchObject({ step: 'paint', timed_out: 2, failed: 0 });
      expect(new Set(status.timed_out.map((t: { request_id: string }) => t.request_id))).toEqual(ids);
      expect(first.stderr).toContain('2 item(s) timed out: their jobs still run at the service');

      // The jobs go on at the service and are charged when they end.
      await allJobsEnded(emulator);
      const charged = await chargedMicros(emulator);
      expect(charged).toBeGreaterThan(0);
      const second = await runWithOutputs(dir, emulator);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('2 timed out earlier, polled and adopted');
      expect(await serviceJobs(emulator)).toHaveLength(2); // adopted, not submitted again
      expect(existsSync(join(dir, 'out', 'paint-0.png')) && existsSync(join(dir, 'out', 'paint-1.png'))).toBe(true);
      // Charged once, and counted in spend: every output states what the service charged.
      await expectOneSpend(dir, second, charged);

      // A fresh run of the workflow (a new run id): the adopted results are in the cache.
      const third = await deflow(dir, emulator, ['run', 'workflow.yaml']);
      expect(third.code, third.stderr).toBe(0);
      expect(third.stderr).toContain('2/2 done (2 cached)');
      expect(await serviceJobs(emulator)).toHaveLength(2);
    } finally {
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('with retries: 2 the retries of a timed-out job poll that same job: one submission per item, the run succeeds, spent equals the charges', async () => {
    const dir = await workspace({ 'workflow.yaml': workflow('2s', 2, ['a green kite', 'a grey kite']) });
    const emulator = await startEmulator(dir, 4000);
    try {
      const run = await runWithOutputs(dir, emulator, ['--json']);
      expect(run.code, run.stderr).toBe(0);
      const jobs = await serviceJobs(emulator);
      expect(jobs).toHaveLength(2);
      const retries = events(run.stdout).of('item-retry');
      expect(retries.length).toBeGreaterThanOrEqual(2);
      expect(new Set(retries.map((e) => e['request_id']))).toEqual(new Set(jobs.map((j) => j.request_id)));
      const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
      expect(report.steps[0].items.map((i: { status: string; attempts: number }) => `${i.status} ${i.attempts}`)).toEqual(['done 1', 'done 1']);
      await expectOneSpend(dir, run, await chargedMicros(emulator));
    } finally {
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('--resubmit-timed-out submits timed-out items again (knowingly); without it they are only polled', async () => {
    const dir = await workspace({ 'workflow.yaml': workflow('1s', 0, ['a pink kite']) });
    const emulator = await startEmulator(dir, 4000);
    try {
      expect((await deflow(dir, emulator, ['run', 'workflow.yaml'])).code).toBe(1);
      expect(await serviceJobs(emulator)).toHaveLength(1);
      // Still running at the service: polled again, times out again, nothing new is created.
      const polled = await deflow(dir, emulator, ['run', 'workflow.yaml']);
      expect(polled.code, polled.stderr).toBe(1);
      expect(await serviceJobs(emulator)).toHaveLength(1);
      const resubmitted = await deflow(dir, emulator, ['run', 'workflow.yaml', '--resubmit-timed-out']);
      expect(resubmitted.stderr).toContain('1 timed out, resubmitted (--resubmit-timed-out)');
      expect(await serviceJobs(emulator)).toHaveLength(2);
    } finally {
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a synchronous task (prompt enhancement) charged at once is counted in spend: every figure equals what the balance lost', async () => {
    const dir = await workspace({
      'workflow.yaml': yaml(
        'version: 1',
        'name: enhance',
        'steps:',
        '  better:',
        '    task: prompt.enhance',
        '    for_each: { items: ["a red cat on a mat", "a dog in the fog"] }',
        '    with: { prompt: "${{ item.value }}", type: images.generations, model_slug: Flux1schnell }',
      ),
    });
    const emulator = await startEmulator(dir, 200);
    const balance = async (): Promise<number> => {
      const answer = await fetch(`${emulator.url}/api/v2/account/balance`, { headers: { authorization: `Bearer ${emulator.key}` } });
      return Math.round(((await answer.json()) as { balance: number }).balance * 1e6);
    };
    try {
      const before = await balance();
      const run = await runWithOutputs(dir, emulator);
      expect(run.code, run.stderr).toBe(0);
      const charged = before - (await balance());
      expect(charged).toBeGreaterThan(0);
      await expectOneSpend(dir, run, charged);
    } finally {
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a result paid for but cut off in download, fetched again by a later run, enters the cache: a fresh run pays 0 twice; every spend figure equals the charges', async () => {
    const dir = await workspace({ 'workflow.yaml': workflow('60s', 0, ['a kite at dawn', 'a kite at dusk']) });
    const emulator = await startEmulator(dir, 200);
    const proxy = await useFaultProxy(emulator.url);
    try {
      proxy.plan = { fault: 'cut-mid-body', phase: 'download', seed: 1, rate: 1 };
      const first = await runWithOutputs(dir, emulator, [], proxy.url);
      expect(first.code, first.stderr).toBe(1);
      expect(proxy.hit.download).toBeGreaterThan(0);
      const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
      expect(report.totals.unsaved).toBe(2);
      // Paid, not saved: charged all the same, and stated so everywhere.
      await allJobsEnded(emulator);
      const charged = await chargedMicros(emulator);
      expect(charged).toBeGreaterThan(0);
      await expectOneSpend(dir, first, charged);

      proxy.plan = null;
      const second = await deflow(dir, emulator, ['run', 'workflow.yaml'], {}, proxy.url);
      expect(second.code, second.stderr).toBe(0);
      expect(await serviceJobs(emulator)).toHaveLength(2);

      const third = await deflow(dir, emulator, ['run', 'workflow.yaml'], {}, proxy.url);
      expect(third.code, third.stderr).toBe(0);
      expect(third.stderr).toContain('2/2 done (2 cached)');
      const jobs = await serviceJobs(emulator);
      expect(jobs).toHaveLength(2);
      expect(new Set(jobs.map((j) => j.params_digest)).size).toBe(2);
    } finally {
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
