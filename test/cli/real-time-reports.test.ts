/**
 * Against an emulator on an accelerated clock (time scale 50, followed through its
 * `X-Emulator-Clock` answers), every time a person reads is real time, with the emulator's
 * virtual time beside it, labelled: the run id, the terminal summary, JUnit's `time`, the GitHub
 * step summary and the HTML report's header. The bounds come from the test's own measured
 * elapsed time, never from a fixed threshold.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { clips, CHAIN } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

describe('times a person reads, against an emulator at time scale 50', () => {
  it('are real, with the virtual time beside them, labelled', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2), 'summary.md': '' });
    const emulator = await useEmulator({ config: { time_scale: 50, balance: 100, jobs: { duration_ms: 20_000, scale_by_input: false }, rate_limits: { jobs_status: null } } });
    const io = { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'summary.md') } };
    const before = Date.now();
    const code = await runCli(['run', 'workflow.yaml', '--junit', 'junit.xml', '--html', 'report.html'], io);
    const elapsedMs = Date.now() - before;
    expect(code, io.stderrText()).toBe(0);

    // The run id is dated when the run began, on the reader's clock: not in the emulator's future.
    const [runId] = await readdir(join(dir, '.deflow', 'runs'));
    const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(runId!)!;
    const dated = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
    expect(dated).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(dated).toBeLessThanOrEqual(before + elapsedMs);

    // Jobs of 20 virtual seconds: the run takes more than 40 s of the emulator's time, under a second or so of real time.
    const report = JSON.parse(await readFile(join(dir, '.deflow', 'runs', runId!, 'report.json'), 'utf8')) as { duration_ms: number; time_scale: number };
    expect(report.time_scale).toBe(50);
    expect(report.duration_ms).toBeGreaterThan(40_000);

    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    const times = [...junit.matchAll(/ time="([\d.]+)"/g)].map((t) => Number(t[1]) * 1000);
    expect(times.length).toBe(1 + 2 + 4);
    for (const t of times) expect(t).toBeLessThanOrEqual(elapsedMs);
    expect(Number(/<testsuites [^>]*time="([\d.]+)"/.exec(junit)![1]) * 1000).toBeCloseTo(report.duration_ms / 50, -1);

    // Terminal summary, step summary, HTML header: real first, the virtual time beside it.
    const beside = /(\d+(?:\.\d)?m?s(?: \d\ds)?) \((\d+(?:\.\d)?s|\d+m \d\ds) virtual\)/;
    expect(io.stderrText()).toMatch(new RegExp(`done \\(exit 0\\) in ${beside.source}:`));
    const summary = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(summary).toMatch(beside);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/started <time [^>]*>[^<]*<\/time> \(emulator time\), /);
    expect(html).toMatch(beside);

    // deflow status: real dates, within the run's measured span; the emulator's beside them, labelled.
    const status = { ...createFakeCliIO(dir), env: io.env };
    expect(await runCli(['status', 'workflow.yaml'], status)).toBe(0);
    const line = /^started: (\S+), finished: (\S+) \(emulator time: started (\S+), finished (\S+)\)$/m.exec(status.stdoutText());
    expect(line, status.stdoutText()).not.toBeNull();
    const [started, finished, emulatorFinished] = [line![1]!, line![2]!, line![4]!].map((t) => Date.parse(t));
    expect(started).toBeGreaterThanOrEqual(before);
    expect(finished!).toBeLessThanOrEqual(before + elapsedMs);
    expect(finished!).toBeGreaterThanOrEqual(started!);
    expect(emulatorFinished!).toBeGreaterThan(before + elapsedMs);
    const list = { ...createFakeCliIO(dir), env: io.env };
    expect(await runCli(['status', '--json'], list)).toBe(0);
    const [listed] = (JSON.parse(list.stdoutText()) as { runs: { started_at: string; finished_at: string }[] }).runs;
    expect({ started: Date.parse(listed!.started_at), finished: Date.parse(listed!.finished_at) }).toEqual({ started, finished });
  });
});
