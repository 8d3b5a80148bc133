import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/common/cli-io.js';
import { createReporters } from '../../src/report/select-renderers.js';
import { manualTicker, memoryStream, sampleRun } from './run-events.js';

const SGR = /\u001b\[[0-9;]*m/;

function fakeIO(cwd: string, env: NodeJS.ProcessEnv, options: { stdout?: NodeJS.WritableStream; tty?: boolean } = {}) {
  const stdout = memoryStream();
  const stderr = memoryStream({ isTTY: options.tty ?? false });
  const io: CliIO = {
    stdout: options.stdout ?? stdout,
    stderr,
    stdin: Readable.from([]),
    env,
    cwd,
    interrupted: new Promise<void>(() => {}),
    isInterrupted: () => false,
  };
  return { io, stdout, stderr };
}

describe('createReporters', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'deflow-reporters-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('--json puts only NDJSON on stdout and the heartbeat on stderr', async () => {
    const { io, stdout, stderr } = fakeIO(dir, {});
    const reporters = createReporters(io, { json: true, env: io.env, ticker: manualTicker() });
    const events = sampleRun();
    for (const event of events) reporters.sink(event);
    await reporters.finish();
    const lines = stdout.text().trim().split('\n');
    expect(lines[0]).toBe('{"type":"version","format":"1.2","format_version":1,"tool":"deflow"}');
    expect(lines).toHaveLength(events.length + 1);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(stderr.text()).toContain('[deflow] running Podcast');
    expect(stderr.text()).toContain('[deflow] failed (exit 1)');
  });

  it('writes --report and --junit relative to cwd, even for a failed run', async () => {
    const { io } = fakeIO(dir, {});
    const reporters = createReporters(io, { json: false, reportPath: 'run.json', junitPath: 'junit.xml', env: io.env, ticker: manualTicker() });
    for (const event of sampleRun()) reporters.sink(event);
    await reporters.finish();
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'run.json']);
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')) as { status: string; totals: { failed: number } };
    expect(report.status).toBe('failed');
    expect(report.totals.failed).toBe(1);
    expect(await readFile(join(dir, 'junit.xml'), 'utf8')).toContain('<failure type="E_JOB_FAILED"');
  });

  it('in GitHub Actions appends the step summary and prints annotations', async () => {
    const summary = join(dir, 'summary.md');
    await writeFile(summary, 'before\n');
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
    const { io, stdout } = fakeIO(dir, env);
    const reporters = createReporters(io, { json: false, env, ticker: manualTicker() });
    for (const event of sampleRun()) reporters.sink(event);
    await reporters.finish();
    const text = await readFile(summary, 'utf8');
    expect(text.startsWith('before\n\n## deflow: Podcast: ❌ failed (exit 1)')).toBe(true);
    expect(stdout.text().split('\n').filter((line) => line.startsWith('::'))).toEqual([
      '::error title=E_JOB_FAILED::transcribe[1] b.mp3: the job failed (job error WORKER_ERROR, reason PROCESSING_FAILED, request req-t1)',
      '::error title=E_JOB_UNKNOWN::speak[2] c.mp3: outcome unknown: connection reset while submitting',
    ]);
  });

  it('with --json in GitHub Actions keeps annotations off stdout', async () => {
    const env = { GITHUB_ACTIONS: 'true' };
    const { io, stdout, stderr } = fakeIO(dir, env);
    const reporters = createReporters(io, { json: true, env, ticker: manualTicker() });
    for (const event of sampleRun()) reporters.sink(event);
    await reporters.finish();
    expect(stdout.text()).not.toContain('::error');
    expect(stderr.text()).toContain('::error title=E_JOB_FAILED::');
  });

  it('honours NO_COLOR in a terminal', async () => {
    const env = { NO_COLOR: '1' };
    const { io, stderr } = fakeIO(dir, env, { tty: true });
    const reporters = createReporters(io, { json: false, env, ticker: manualTicker(), animate: false });
    for (const event of sampleRun()) reporters.sink(event);
    await reporters.finish();
    expect(stderr.text()).toContain('transcribe (audio-to-text)');
    expect(stderr.text()).not.toMatch(SGR);
  });

  it('uses colour in a terminal without NO_COLOR', async () => {
    const { io, stderr } = fakeIO(dir, {}, { tty: true });
    const reporters = createReporters(io, { json: false, env: {}, ticker: manualTicker(), animate: false });
    for (const event of sampleRun()) reporters.sink(event);
    await reporters.finish();
    expect(stderr.text()).toMatch(SGR);
  });

  it('keeps the run going when a renderer throws, writes the files, then reports the error', async () => {
    const broken = {
      write(): boolean {
        throw new Error('stdout closed');
      },
    } as unknown as NodeJS.WritableStream;
    const { io } = fakeIO(dir, {}, { stdout: broken });
    // The NDJSON renderer writes its version line at creation, so the failure shows at construction…
    expect(() => createReporters(io, { json: true, env: {}, ticker: manualTicker() })).toThrow('stdout closed');
    let calls = 0;
    const flaky = {
      write(): boolean {
        calls += 1;
        if (calls > 1) throw new Error('stdout closed');
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    // …and after it, the sink swallows the error so the engine keeps running.
    const { io: io2 } = fakeIO(dir, {}, { stdout: flaky });
    const reporters = createReporters(io2, { json: true, reportPath: 'run.json', env: {}, ticker: manualTicker() });
    for (const event of sampleRun()) expect(() => reporters.sink(event)).not.toThrow();
    await expect(reporters.finish()).rejects.toThrow('stdout closed');
    expect(JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'))).toMatchObject({ status: 'failed' });
    expect(calls).toBe(2);
  });

  it('still writes the other files when one cannot be written, then fails with E_REPORT_WRITE', async () => {
    const { io } = fakeIO(dir, {});
    await writeFile(join(dir, 'a-file'), 'not a folder');
    const reporters = createReporters(io, { json: false, reportPath: 'a-file/run.json', junitPath: 'junit.xml', env: {}, ticker: manualTicker() });
    for (const event of sampleRun()) reporters.sink(event);
    await expect(reporters.finish()).rejects.toMatchObject({ code: 'E_REPORT_WRITE', message: expect.stringContaining('a-file/run.json') });
    expect((await readdir(dir)).sort()).toEqual(['a-file', 'junit.xml']);
  });
});
