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
    expect(html).toMatch(/started <time [^>]*>[^<]*<\/time> \(emulator time: [^)]+\), /);
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

  it('per session in deflow status, and on the HTML report header and timeline axis: real, the emulator time beside them', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useEmulator({ config: { time_scale: 50, balance: 100, jobs: { duration_ms: 20_000, scale_by_input: false }, rate_limits: { jobs_status: null } } });
    const env = { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api };
    // Session 1, interrupted once an item is done; session 2, a bare run, resumes it.
    const before = Date.now();
    const first = { ...createFakeCliIO(dir), env };
    const running = runCli(['run', 'workflow.yaml', '--json'], first);
    await first.waitForStdout('"type":"item-done"', 60_000);
    first.interrupt();
    expect(await running, first.stderrText()).toBe(130);
    const between = Date.now();
    const second = { ...createFakeCliIO(dir), env };
    expect(await runCli(['run', 'workflow.yaml', '--html', 'report.html'], second), second.stderrText()).toBe(0);
    const after = Date.now();

    type Dates = { started_at: string; finished_at: string };
    const json = { ...createFakeCliIO(dir), env };
    expect(await runCli(['status', 'workflow.yaml', '--json'], json)).toBe(0);
    const sessions = (JSON.parse(json.stdoutText()) as { cost: { invocations: (Dates & { status: string; emulator_time: Dates })[] } }).cost.invocations;
    expect(sessions.map((session) => session.status)).toEqual(['interrupted', 'done']);
    const real = sessions.map((session) => [Date.parse(session.started_at), Date.parse(session.finished_at)] as const);
    // Real dates, each within the span the test measured for its session.
    expect(real[0]![0]).toBeGreaterThanOrEqual(before);
    expect(real[0]![1]).toBeLessThanOrEqual(between);
    expect(real[1]![0]).toBeGreaterThanOrEqual(between);
    expect(real[1]![1]).toBeLessThanOrEqual(after);
    // The emulator's dates beside them run ahead: its clock went 50 times as fast.
    expect(Date.parse(sessions[1]!.emulator_time.finished_at)).toBeGreaterThan(after);
    const text = { ...createFakeCliIO(dir), env };
    expect(await runCli(['status', 'workflow.yaml'], text)).toBe(0);
    for (const [i, session] of sessions.entries()) {
      expect(text.stdoutText()).toContain(`  session ${i + 1} (${session.started_at}, emulator time ${session.emulator_time.started_at}, ${session.status}): `);
    }

    // The HTML header: the real start, the emulator's beside it.
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    const header = /started <time data-ts="(\d+)">([^<]+)<\/time> \(emulator time: ([^)]+)\), /.exec(html);
    expect(header, html.slice(0, 2000)).not.toBeNull();
    expect(Number(header![1])).toBeGreaterThanOrEqual(before);
    expect(Number(header![1])).toBeLessThanOrEqual(between);
    expect(Date.parse(header![3]!)).toBeGreaterThan(Number(header![1]));
    // The axis: real time first, the emulator's on a second row, both labelled; its last real tick
    // within the run's measured span, each emulator tick 50 times its real one.
    const axis = /<g class="axis">(.*?)<\/g>/.exec(html)![1]!;
    expect(axis).toContain('>real time</text>');
    expect(axis).toContain('>emulator time (×50)</text>');
    const ms = (label: string): number => {
      const m = /^(?:(\d+)m )?(\d+(?:\.\d+)?)(ms|s)$/.exec(label)!;
      return (Number(m[1] ?? 0) * 60 + Number(m[2])) * (m[3] === 'ms' ? 1 : 1000);
    };
    const realTicks = [...axis.matchAll(/<text x="[\d.]+" y="12">([^<]+)<\/text>/g)].map((t) => ms(t[1]!));
    const virtualTicks = [...axis.matchAll(/<text class="virtual" x="[\d.]+" y="25">([^<]+)<\/text>/g)].map((t) => ms(t[1]!));
    expect(realTicks.length).toBeGreaterThan(2);
    expect(realTicks.at(-1)!).toBeLessThanOrEqual(after - before);
    expect(virtualTicks.length).toBe(realTicks.length);
    for (const [i, t] of realTicks.entries()) expect(virtualTicks[i]! / 50).toBeCloseTo(t, -2);
  });
});
