import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';
import { transcribeThenSpeak } from '../fixtures/workflows.js';

const CHAIN = transcribeThenSpeak('cli-chain');

const clips = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`clips/c${i}.mp3`, makeMp3(3 + i)]));

/** An emulator config for `--emulator-config`: fast clock, short jobs, plus `extra` (YAML lines). */
const emulatorConfig = (...extra: string[]) => yaml('time_scale: 200', 'jobs: { duration_ms: 2000 }', ...extra);

async function run(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; io: FakeCliIO }> {
  const base = createFakeCliIO(dir);
  const io: FakeCliIO = { ...base, env };
  return { code: await runCli(args, io), io };
}

describe('deflow run', () => {
  it('runs a chain, saves outputs, and writes the report, JUnit and NDJSON (exit 0)', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': emulatorConfig(), ...clips(2) });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--json', '--report', 'run.json', '--junit', 'junit.xml']);
    expect(code).toBe(0);
    const lines = io.stdoutText().trim().split('\n').map((line) => JSON.parse(line) as { type: string });
    expect(lines[0]).toMatchObject({ type: 'version' });
    expect(lines.at(-1)).toMatchObject({ type: 'run-finished', status: 'done' });
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
    expect(report).toMatchObject({ format_version: 1, status: 'done', exit_code: 0, totals: { items: 4, done: 4, failed: 0 } });
    expect(report.steps[1].items[0].outputs).toEqual(['out/c0.mp3']);
    expect((await readFile(join(dir, 'out', 'c1.txt'), 'utf8')).length).toBeGreaterThan(0);
    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)?.length).toBeGreaterThanOrEqual(4);
    expect(io.stderrText()).toContain('outputs: out');
  });

  it('writes a Markdown summary under GitHub Actions', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': emulatorConfig(), 'summary.md': '', ...clips(1) });
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'summary.md') };
    const { code } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--quiet'], env);
    expect(code).toBe(0);
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain('cli-chain');
  });

  it('exits 1 when items failed, after finishing the others', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': yaml('time_scale: 200', 'jobs: { duration_ms: 2000, fail_rate: 1 }'), ...clips(2) });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--report', 'run.json']);
    expect(code).toBe(1);
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
    expect(report.totals).toMatchObject({ failed: 2, skipped: 2 });
    expect(report.steps[0].items[0].error).toMatchObject({ code: 'E_JOB_FAILED', job_error_code: 'WORKER_TIMEOUT' });
    expect(io.stderrText()).not.toContain('outputs:');
  });

  it('exits 2 for an invalid workflow, naming the file and line', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN.replace('task: audio.speech', 'task: audio.speak'), ...clips(1) });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator']);
    expect(code).toBe(2);
    expect(io.stderrText()).toMatch(/workflow\.yaml:\d+:\d+: .*audio\.speak/);
  });

  it('exits 2 for a bad --concurrency', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1) });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--concurrency', '0']);
    expect(code).toBe(2);
    expect(io.stderrText()).toContain('--concurrency: expected a whole number ≥ 1, got "0"');
  });

  it('exits 3 when the account cannot pay before the first submission', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': emulatorConfig('balance: 0'), ...clips(2) });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--json']);
    expect(code).toBe(3);
    expect(io.stdoutText()).toContain('"status":"refused"');
    // The balance read before the start is below the quote's high end: nothing is sent to be refused (422).
    expect(io.stderrText()).toMatch(/^deflow: refused to start, nothing was submitted: the high end of the quote, \$0\.\d+, is above the balance of \$0$/m);
  });

  it('exits 4 when the quote is above --max-cost, submitting nothing', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': emulatorConfig(), ...clips(2) });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--max-cost', '0.0000001', '--json']);
    expect(code).toBe(4);
    expect(io.stdoutText()).not.toContain('item-submitted');
    expect(io.stderrText()).toMatch(/\nover budget: refused to start, nothing was submitted: the high end of the quote, \$0\.\d+, is above the cap of \$0\n/);
  });

  it('exits 5 when a daily rate limit stops the run', async () => {
    const daily = yaml('rate_limits:', '  endpoints:', "    'audio/transcriptions': { rpm: 60, rpd: 1 }");
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': emulatorConfig(daily), ...clips(3) });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--json', '--report', 'run.json']);
    expect(code).toBe(5);
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
    expect(report).toMatchObject({ status: 'daily-limit', exit_code: 5 });
    expect(report.totals.pending).toBeGreaterThan(0);
    expect(io.stdoutText()).toContain('"type":"daily-limit"');
  });

  it('exits 130 on an interrupt, after the jobs in flight settle', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': yaml('time_scale: 50', 'jobs: { duration_ms: 20000 }'), ...clips(2) });
    const base = createFakeCliIO(dir);
    const io: FakeCliIO = { ...base, env: {} };
    const running = runCli(['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--json', '--report', 'run.json'], io);
    await base.waitForStdout('"item-submitted"', 20_000);
    base.interrupt();
    expect(await running).toBe(130);
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
    expect(report).toMatchObject({ status: 'interrupted', exit_code: 130 });
    expect(report.totals.done).toBeGreaterThan(0);
    expect(io.stderrText()).toContain('stopped (interrupted)');
  });

  it('--dry-run validates, expands and quotes, and submits nothing', async () => {
    const emulator = await useEmulator({ config: { balance: 100 } });
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const env = { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api };
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--dry-run'], env);
    expect(code).toBe(0);
    expect(emulator.stats()).toMatchObject({ submissions: 0 });
    expect(emulator.stats().quotes).toBeGreaterThan(0);
    expect(io.stderrText()).toContain('dry run: nothing was submitted (4 jobs planned)');
  });
});
