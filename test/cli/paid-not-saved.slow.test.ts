/**
 * A job done on the service is paid for: whatever then happens to its result (a save that
 * fails, a state folder that cannot take the download, a garbled run.json), a re-run fetches
 * the result again and never submits the job a second time. Submissions are counted by the
 * emulator itself.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { useFaultProxy } from '../helpers/fault-proxy.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';

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

describe('a paid result is never paid again', () => {
  it('a save that fails leaves the item paid, not saved (report, JUnit, status); the re-run saves it with no new submission', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useServiceEmulator();
    // The save path of c0's transcript is taken by a folder: writing it fails after payment.
    await mkdir(join(dir, 'out', 'c0.txt'), { recursive: true });
    const first = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet', '--report', 'report.json', '--junit', 'junit.xml']);
    expect(first.code).toBe(1);
    const submitted = emulator.stats().submissions;
    expect(submitted).toBe(3); // c0's speech is skipped: its transcript is not saved

    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    const item = report.steps[0].items.find((i: { key: string }) => i.key === 'clips/c0.mp3');
    expect(item).toMatchObject({ status: 'unsaved', request_id: expect.any(String) });
    expect(item.error.message).toContain('paid, not saved');
    expect(item.cost_actual).toBeGreaterThan(0);
    expect(report.totals).toMatchObject({ failed: 1, unsaved: 1 });
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toContain('state: paid, not saved');
    const status = await deflow(dir, emulator, ['status', 'workflow.yaml', '--json']);
    expect(JSON.parse(status.io.stdoutText()).steps[0]).toMatchObject({ step: 'transcribe', unsaved: 1 });
    expect((await deflow(dir, emulator, ['status', 'workflow.yaml'])).io.stdoutText()).toContain('paid, not saved: these jobs are paid for');

    await rm(join(dir, 'out', 'c0.txt'), { recursive: true });
    const again = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet']);
    expect(again.code).toBe(0);
    // Only c0's speech, skipped before, is new; the transcript was fetched again, not bought again.
    expect(emulator.stats().submissions).toBe(submitted + 1);
    expect(await readFile(join(dir, 'out', 'c0.txt'), 'utf8')).not.toBe('');
    const digests = emulator.jobs().map((j) => `${j.task} ${j.params_digest}`);
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('a download the state folder cannot take (its temp folder is a file) is fetched again by the re-run, not resubmitted', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useServiceEmulator();
    await mkdir(join(dir, '.deflow', 'blobs'), { recursive: true });
    await writeFile(join(dir, '.deflow', 'blobs', 'tmp'), 'in the way');
    const first = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet']);
    expect(first.code).toBe(1);
    const submitted = emulator.stats().submissions;
    expect(submitted).toBe(4); // both speech jobs are paid; neither result could be stored

    await rm(join(dir, '.deflow', 'blobs', 'tmp'));
    const again = await deflow(dir, emulator, ['run', 'workflow.yaml', '--json']);
    expect(again.io.stderrText()).toContain('2 item(s) paid for in run');
    expect(again.code).toBe(0);
    expect(emulator.stats().submissions).toBe(submitted);
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['c0.mp3', 'c0.txt', 'c1.mp3', 'c1.txt']);
  });

  it('a garbled run.json beside an intact journal is rebuilt from the journal: the interrupted run resumes, nothing is paid twice', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useServiceEmulator(1500);
    const io = ioFor(dir, emulator);
    const running = runCli(['run', 'workflow.yaml', '--json', '--quiet', '--no-cache'], io);
    await io.waitForStdout('"item-submitted"', 20_000);
    io.interrupt();
    expect(await running).toBe(130);
    const runId = (await readdir(join(dir, '.deflow', 'runs')))[0]!;
    await writeFile(join(dir, '.deflow', 'runs', runId, 'run.json'), '{"v":1,"run_id":"garbage');

    const resumed = await deflow(dir, emulator, ['run', 'workflow.yaml', '--no-cache']);
    expect(resumed.code).toBe(0);
    expect(resumed.io.stderrText()).toContain(`resuming run ${runId}`);
    expect(await readdir(join(dir, '.deflow', 'runs'))).toEqual([runId]);
    expect(emulator.jobs().length).toBe(6);
    const digests = emulator.jobs().map((j) => `${j.task} ${j.params_digest}`);
    expect(new Set(digests).size).toBe(digests.length);
    expect(JSON.parse(await readFile(join(dir, '.deflow', 'runs', runId, 'run.json'), 'utf8'))).toMatchObject({ run_id: runId, status: 'done' });
  });

  it('downloads cut mid-body end as paid, not saved (no crash); the re-run fetches them, with no new submission', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useServiceEmulator();
    const proxy = await useFaultProxy(emulator.url);
    const through = (args: string[]) => {
      const io = { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: proxy.url, DEAPI_API_KEY: emulator.keys.api } };
      return runCli(args, io).then((code) => ({ code, io }));
    };
    proxy.plan = { fault: 'cut-mid-body', phase: 'download', seed: 1, rate: 1 };
    const first = await through(['run', 'workflow.yaml', '--quiet', '--report', 'report.json']);
    expect(first.code).toBe(1);
    expect(proxy.hit.download).toBeGreaterThan(0);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    expect(report.totals.unsaved).toBe(2);
    const submitted = emulator.stats().submissions;
    expect(submitted).toBe(2); // the transcripts are paid; their speech never started

    proxy.plan = null;
    const again = await through(['run', 'workflow.yaml', '--quiet']);
    expect(again.code).toBe(0);
    expect(emulator.stats().submissions).toBe(submitted + 2); // only the speech jobs are new
    const digests = emulator.jobs().map((j) => `${j.task} ${j.params_digest}`);
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('a resume (--run-id) of items paid, not saved fetches their results from the same jobs: no new submission', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useServiceEmulator();
    const proxy = await useFaultProxy(emulator.url);
    const through = (args: string[]) => {
      const io = { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: proxy.url, DEAPI_API_KEY: emulator.keys.api } };
      return runCli(args, io).then((code) => ({ code, io }));
    };
    proxy.plan = { fault: 'cut-mid-body', phase: 'download', seed: 1, rate: 1 };
    expect((await through(['run', 'workflow.yaml', '--quiet'])).code).toBe(1);
    const runId = (await readdir(join(dir, '.deflow', 'runs')))[0]!;
    const transcripts = emulator.jobs();
    expect(transcripts.length).toBe(2);

    proxy.plan = null;
    const resumed = await through(['run', 'workflow.yaml', '--quiet', '--run-id', runId]);
    expect(resumed.code).toBe(0);
    // The resume plan polls the two paid transcription jobs again; only the speech jobs are new.
    const jobs = emulator.jobs();
    expect(jobs.length).toBe(4);
    expect(jobs.filter((j) => j.task === transcripts[0]!.task).map((j) => j.request_id).sort()).toEqual(transcripts.map((j) => j.request_id).sort());
    expect(jobs.filter((j) => j.task !== transcripts[0]!.task).length).toBe(2);
    expect(emulator.stats().submissions).toBe(4);
  });
});
