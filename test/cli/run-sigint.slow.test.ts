import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';

const root = new URL('../../', import.meta.url).pathname;
let build: string;

beforeAll(async () => {
  // The built CLI, as `npx deflow` runs it (compiled aside so that no other test's dist/ is touched).
  build = await mkdtemp(join(tmpdir(), 'deflow-build-'));
  await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', join(build, 'dist')], { cwd: root });
  await writeFile(join(build, 'package.json'), '{"type":"module"}\n');
  await symlink(join(root, 'node_modules'), join(build, 'node_modules'));
  await symlink(join(root, 'schemas'), join(build, 'schemas'));
}, 180_000);

afterAll(async () => {
  if (build) await rm(build, { recursive: true, force: true });
});

const CHAIN = yaml(
  'version: 1',
  'name: sigint',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "clips/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
  '  speak:',
  '    task: audio.speech',
  '    for_each: transcribe',
  '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
);

/** Starts `deflow run` in `dir`; resolves `submitted` at the first item-submitted event. */
function startRun(dir: string) {
  const child = spawn(process.execPath, [join(build, 'dist', 'cli', 'main.js'), 'run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--json', '--report', 'run.json'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const submitted = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('"item-submitted"')) resolve();
    });
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return { child, submitted, out: () => stdout, err: () => stderr };
}

describe('deflow run and SIGINT', () => {
  it('stops on a single SIGTERM the same way, and exits 143 (not 130)', async () => {
    const clips = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`clips/c${i}.mp3`, makeMp3(2)]));
    const emulator = yaml('time_scale: 20', 'rate_limits: { endpoints: { "audio/transcriptions": { rpm: 2 } } }', 'jobs: { duration_ms: 8000, scale_by_input: false }');
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': emulator, ...clips });
    const run = startRun(dir);
    await run.submitted;
    run.child.kill('SIGTERM');
    const [code] = await once(run.child, 'exit');
    expect(code).toBe(143);
    expect(JSON.parse(run.out().trim().split('\n').at(-1)!)).toMatchObject({ type: 'run-finished', status: 'interrupted' });
  });

  it('stops submitting on the first SIGINT, lets jobs in flight settle, writes the report and exits 130', async () => {
    const clips = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`clips/c${i}.mp3`, makeMp3(2)]));
    // Two transcriptions a minute, so most items have not been submitted when the signal comes.
    const emulator = yaml('time_scale: 20', 'rate_limits: { endpoints: { "audio/transcriptions": { rpm: 2 } } }', 'jobs: { duration_ms: 8000, scale_by_input: false }');
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': emulator, ...clips });
    const run = startRun(dir);
    await run.submitted;
    run.child.kill('SIGINT');
    const [code] = await once(run.child, 'exit');
    expect(code).toBe(130);
    const last = JSON.parse(run.out().trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ type: 'run-finished', status: 'interrupted' });
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
    expect(report).toMatchObject({ status: 'interrupted', exit_code: 130 });
    // The jobs already submitted were polled to the end; nothing else was submitted.
    expect(report.totals.done).toBeGreaterThanOrEqual(1);
    expect(report.totals.pending).toBeGreaterThanOrEqual(4);
    expect(report.steps[0].items.filter((item: { status: string }) => item.status === 'running')).toEqual([]);
    expect(run.err()).toContain('stopped (interrupted)');
  });

  it('exits at once on a second SIGINT', async () => {
    const clips = { 'clips/c0.mp3': makeMp3(2) };
    const emulator = yaml('time_scale: 1', 'jobs: { duration_ms: 600000 }');
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'emulator.yaml': emulator, ...clips });
    const run = startRun(dir);
    await run.submitted;
    run.child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    run.child.kill('SIGINT');
    const [code] = await once(run.child, 'exit');
    expect(code).toBe(130);
  });
});
