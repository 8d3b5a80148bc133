import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';

/** A standalone emulator (its jobs outlive one CLI invocation): real time, short jobs, generous limits. */
function useServiceEmulator(durationMs = 100): Promise<RunningEmulator> {
  const rate = { rpm: 600, rpd: null };
  return useEmulator({ config: { balance: 100, jobs: { duration_ms: durationMs, scale_by_input: false }, rate_limits: { endpoints: { 'audio/transcriptions': rate, 'audio/speech': rate }, jobs_status: null } } });
}

function ioFor(dir: string, emulator: RunningEmulator): FakeCliIO {
  return { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } };
}

async function deflow(dir: string, emulator: RunningEmulator, args: string[]): Promise<{ code: number; io: FakeCliIO }> {
  const io = ioFor(dir, emulator);
  return { code: await runCli(args, io), io };
}

describe('deflow run: journal, resume and cache', () => {
  it('pays nothing the second time for an unchanged workflow, and exactly the new jobs for added files', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useServiceEmulator();
    expect((await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet'])).code).toBe(0);
    expect(emulator.stats().submissions).toBe(4);

    const again = await deflow(dir, emulator, ['run', 'workflow.yaml', '--json']);
    expect(again.code).toBe(0);
    expect(emulator.stats().submissions).toBe(4);
    expect(again.io.stdoutText()).toContain('"cached":true');

    for (const [path, content] of Object.entries(clips(1, 2))) await writeFile(join(dir, path), content);
    expect((await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet'])).code).toBe(0);
    expect(emulator.stats().submissions).toBe(6);

    expect((await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet', '--no-cache'])).code).toBe(0);
    expect(emulator.stats().submissions).toBe(12);
    expect((await readdir(join(dir, '.deflow', 'runs'))).length).toBe(4);
  });

  it('keeps its state in --state-dir and names the run --run-id', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1) });
    const emulator = await useServiceEmulator();
    const { code } = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet', '--state-dir', 'state', '--run-id', 'nightly-1']);
    expect(code).toBe(0);
    expect((await stat(join(dir, 'state', 'runs', 'nightly-1', 'journal.jsonl'))).isFile()).toBe(true);
    expect(JSON.parse(await readFile(join(dir, 'state', 'runs', 'nightly-1', 'run.json'), 'utf8'))).toMatchObject({ run_id: 'nightly-1', status: 'done' });
    await expect(stat(join(dir, '.deflow', 'runs'))).rejects.toThrow();
    const bad = await deflow(dir, emulator, ['run', 'workflow.yaml', '--run-id', '../escape']);
    expect(bad.code).toBe(2);
    expect(bad.io.stderrText()).toContain('run id "../escape"');
  });

  it('on the first interrupt flushes the journal and prints the command that resumes the run, which then pays for nothing twice', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useServiceEmulator(1500);
    const io = ioFor(dir, emulator);
    const running = runCli(['run', 'workflow.yaml', '--json', '--quiet'], io);
    await io.waitForStdout('"item-submitted"', 20_000);
    io.interrupt();
    expect(await running).toBe(130);
    const resume = /resume with: (.+)/.exec(io.stderrText())?.[1];
    const runId = (await readdir(join(dir, '.deflow', 'runs')))[0]!;
    expect(resume).toBe(`deflow run workflow.yaml --run-id ${runId}`);
    expect(JSON.parse(await readFile(join(dir, '.deflow', 'runs', runId, 'run.json'), 'utf8'))).toMatchObject({ status: 'interrupted' });
    const before = emulator.jobs().length;

    const resumed = await deflow(dir, emulator, resume!.split(' ').slice(1).concat('--json'));
    expect(resumed.code).toBe(0);
    expect(resumed.io.stdoutText()).toContain('"resumed":true');
    expect(resumed.io.stderrText()).toContain(`resuming run ${runId}`);
    expect(emulator.jobs().length).toBe(6);
    expect(emulator.jobs().length - before).toBeLessThan(6);
    const digests = emulator.jobs().map((j) => `${j.task} ${j.params_digest}`);
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('needs --webhook-url and --webhook-listen together', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1) });
    const emulator = await useServiceEmulator();
    const { code, io } = await deflow(dir, emulator, ['run', 'workflow.yaml', '--webhook-url', 'https://hooks.example.com/x']);
    expect(code).toBe(2);
    expect(io.stderrText()).toContain('--webhook-url: expected --webhook-listen as well');
    expect(emulator.stats().submissions).toBe(0);
  });
});
