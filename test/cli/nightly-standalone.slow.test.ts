/**
 * Issue 14's nightly scenario with processes, as a user runs it: a workflow and media in a
 * folder outside the repository, a standalone `deflow emulator` process on an accelerated clock
 * (a day lasts 8.6 real seconds) with a daily limit of 5 on speech, and `deflow run` as separate
 * processes (the CLI built aside). The runs follow the emulator's clock from its answers
 * (`X-Emulator-Clock`), so a re-run after the emulator's day window is a re-run after the reset.
 * Counts come from the emulator (`/_emulator/jobs`, `/_emulator/stats`), not from deflow.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { call } from '../helpers/emulator-http.js';
import { yaml } from '../engine/run-helpers.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';

let cli: BuiltCli;

beforeAll(async () => {
  cli = await buildCliAside('deflow-nightly-build-');
}, 240_000);

afterAll(async () => {
  await cli?.remove();
});

const NIGHTLY = yaml(
  'version: 1',
  'name: nightly',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "inbox/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
  '    save: "transcripts/${{ item.stem }}.txt"',
  '  speak:',
  '    task: audio.speech',
  '    for_each: transcribe',
  '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
  '    save: "speech/${{ item.stem }}.mp3"',
  '  embed:',
  '    task: text.embed',
  '    gather: partial',
  '    with: { input: "${{ steps.transcribe.text }}", model: Bge_M3_FP16 }',
  '    save: "embeddings.json"',
);

/** Time scale 10,000: a day of the emulator in 8.6 real seconds, far longer than a run's few. */
const EMULATOR = yaml(
  'time_scale: 10000',
  'balance: 1000',
  'jobs: { duration_ms: 2000 }',
  'rate_limits: { endpoints: { "audio/speech": { rpm: 60, rpd: 5 } } }',
);


/**
 * `deflow ARGS` as a separate process against the emulator; its exit code and standard error.
 * `env` replaces the environment's key and endpoint (undefined: left out, for a `.env` to give).
 */
async function deflow(
  dir: string,
  emulator: EmulatorProcess,
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; started?: (child: ChildProcess) => void } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name as keyof typeof env];
  const child = spawn(process.execPath, [cli.main, ...args], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  options.started?.(child);
  // A run that would wait for a reset in real time must not outlive a failed test.
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { code, signal, stderr };
}

/** Jobs the emulator holds, by task. */
async function jobCounts(emulator: EmulatorProcess): Promise<Record<string, number>> {
  const jobs = (await call(emulator, 'GET', '/_emulator/jobs')).body as { task: string }[];
  const counts: Record<string, number> = {};
  for (const job of jobs) counts[job.task] = (counts[job.task] ?? 0) + 1;
  return counts;
}

async function submissions(emulator: EmulatorProcess): Promise<number> {
  return (await call(emulator, 'GET', '/_emulator/stats')).body.submissions as number;
}

/** Waits (in real time, a few seconds) until the emulator's clock is past `ms`. */
async function emulatorPast(emulator: EmulatorProcess, ms: number): Promise<number> {
  for (;;) {
    const now = (await call(emulator, 'GET', '/_emulator/clock')).body.now_ms as number;
    if (now > ms) return now;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The number of embedding vectors in the saved result. */
function countVectors(value: unknown): number {
  if (Array.isArray(value)) return value.filter((v) => Array.isArray(v) || (typeof v === 'object' && v !== null)).length;
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) if (Array.isArray(inner)) return countVectors(inner);
  }
  return 0;
}

describe('the nightly scenario against a standalone deflow emulator', () => {
  it('run --keep-going exits 5 with 12 transcripts, 5 speeches and 12 embedded; a re-run after the emulator’s day window finishes the 7 speeches with no new transcription or embedding', async () => {
    // Outside the repository: a temp folder with the workflow, the emulator's config and the media.
    const dir = await mkdtemp(join(tmpdir(), 'deflow-nightly-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'nightly.yaml'), NIGHTLY);
    await writeFile(join(dir, 'emulator.yaml'), EMULATOR);
    await mkdir(join(dir, 'inbox'));
    for (let i = 0; i < 12; i++) await writeFile(join(dir, 'inbox', `clip-${String(i).padStart(2, '0')}.mp3`), makeMp3(2 + i * 0.05));
    await writeFile(join(dir, 'inbox', 'zz-corrupt.mp3'), 'this is not audio');
    // Over the 20 MiB cap for audio given to transcription (sparse: cheap to make).
    await writeFile(join(dir, 'inbox', 'zz-huge.mp3'), makeMp3(2));
    await truncate(join(dir, 'inbox', 'zz-huge.mp3'), 20 * 1024 * 1024 + 1);
    const emulator = await startEmulatorProcess(cli.main, dir, { stopAfterTest: true });

    // The night's run.
    const first = await deflow(dir, emulator, ['run', 'nightly.yaml', '--keep-going']);
    expect(first.code, first.stderr).toBe(5);
    expect(first.stderr).toMatch(/inbox\/zz-corrupt\.mp3: expected .*, got content of an unrecognised format/);
    expect(first.stderr).toMatch(/inbox\/zz-huge\.mp3: expected at most 20971520 bytes, got 20971521 bytes/);
    expect(await jobCounts(emulator)).toEqual({ 'audio.transcribe': 12, 'audio.speech': 5, 'text.embed': 1 });
    expect((await readdir(join(dir, 'out', 'transcripts'))).filter((f) => f.endsWith('.txt'))).toHaveLength(12);
    expect((await readdir(join(dir, 'out', 'speech'))).filter((f) => f.endsWith('.mp3'))).toHaveLength(5);
    expect(countVectors(JSON.parse(await readFile(join(dir, 'out', 'embeddings.json'), 'utf8')))).toBe(12);
    // The reset is the emulator's, and so is the wait the run announces.
    const deferral = /daily limit of audio\/speech used up: 7 item\(s\) deferred until (\S+) \(in [^)]* virtual\)/.exec(first.stderr);
    expect(deferral, first.stderr).not.toBeNull();
    const resetAt = Date.parse(deferral![1]!);
    const paidBefore = await submissions(emulator);
    expect(paidBefore).toBe(18);

    // After the emulator's day window (a few real seconds on its clock), the same command again:
    // it resumes the run and, with --wait-daily, waits out the next window for the last 2 of 7.
    await emulatorPast(emulator, resetAt);
    const after = await deflow(dir, emulator, ['run', 'nightly.yaml', '--keep-going', '--wait-daily']);
    // Everything that could run is done; only the two bad files are left out: exit 6 (issue 27.3).
    expect(after.code, after.stderr).toBe(6);
    expect(after.stderr).toMatch(/^resuming run /m);
    expect(await jobCounts(emulator)).toEqual({ 'audio.transcribe': 12, 'audio.speech': 12, 'text.embed': 1 });
    expect((await submissions(emulator)) - paidBefore).toBe(7);
    expect((await readdir(join(dir, 'out', 'speech'))).filter((f) => f.endsWith('.mp3'))).toHaveLength(12);
    expect((await call(emulator, 'GET', '/_emulator/stats')).body.by_status['429'] ?? 0).toBeLessThanOrEqual(2);
  }, 240_000);
});

/** What a user writes over `deflow init`'s starter: every new recording of an inbox, transcribed and embedded. */
const INBOX = yaml(
  'version: 1',
  'name: inbox',
  'output: out',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "inbox/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
  '    save: "transcripts/${{ item.stem }}.txt"',
  '  embed:',
  '    task: text.embed',
  '    for_each: transcribe',
  '    with: { input: "${{ steps.transcribe.text }}", model: Bge_M3_FP16 }',
  '    save: "embeddings/${{ item.stem }}.json"',
);

interface JobSummary {
  readonly task: string;
  readonly price: number;
  readonly params_digest: string;
}

async function emulatorJobs(emulator: EmulatorProcess): Promise<JobSummary[]> {
  return (await call(emulator, 'GET', '/_emulator/jobs')).body as JobSummary[];
}

/** `n` new recordings in the inbox, numbered from `from` (each of its own length: no two alike). */
async function addRecordings(inbox: string, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) await writeFile(join(inbox, `rec-${String(i).padStart(2, '0')}.mp3`), makeMp3(2 + i * 0.05));
}

describe('three nights through the built CLI against a standalone deflow emulator (the README recipe)', () => {
  it('each night pays only for what is new and exits 6 (one corrupt file left out); night 2 killed and resumed with a bare run; gc between nights; a wrong key fails with everything cached', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-three-nights-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    // Jobs of 3 s whatever the input: a run can be killed with work in flight.
    await writeFile(join(dir, 'emulator.yaml'), 'balance: 1000\njobs: { duration_ms: 3000, scale_by_input: false }\n');
    const emulator = await startEmulatorProcess(cli.main, dir, { args: ['--config', 'emulator.yaml', '--time-scale', '1'], stopAfterTest: true });

    // deflow init, then the user's own steps over an inbox, and the key in .env (not in the environment).
    const init = await deflow(dir, emulator, ['init', 'nightly']);
    expect(init.code, init.stderr).toBe(0);
    await writeFile(join(dir, 'nightly', 'workflow.yaml'), INBOX);
    const envExample = await readFile(join(dir, 'nightly', '.env.example'), 'utf8');
    expect(envExample).toMatch(/^DEAPI_API_KEY=$/m);
    await writeFile(join(dir, 'nightly', '.env'), envExample.replace(/^DEAPI_API_KEY=$/m, `DEAPI_API_KEY=${emulator.key}`));
    const fromDotEnv = { env: { DEAPI_API_KEY: undefined } };
    const inbox = join(dir, 'nightly', 'inbox');
    await mkdir(inbox);
    await addRecordings(inbox, 0, 4);
    await writeFile(join(inbox, 'zz-corrupt.mp3'), 'this is not audio');

    // The cap: above a night's new items (4 at most), below the whole folder by the third night (10).
    const quoted = await deflowJson(dir, emulator, ['quote', 'nightly/workflow.yaml', '--keep-going', '--format', 'json'], fromDotEnv);
    const perItemHigh = quoted.to_pay.high / 4;
    const cap = String(Math.ceil(perItemHigh * 6 * 1e6) / 1e6);
    const night = ['run', 'nightly/workflow.yaml', '--keep-going', '--max-cost', cap];
    const seen: JobSummary[] = [];
    const newJobs = async (): Promise<JobSummary[]> => {
      const all = await emulatorJobs(emulator);
      const fresh = all.slice(seen.length);
      seen.push(...fresh);
      return fresh;
    };
    const tasks = (jobs: readonly JobSummary[]) => jobs.map((j) => j.task).sort();
    const spent = (jobs: readonly JobSummary[]) => jobs.reduce((sum, j) => sum + j.price, 0);
    const pairsOf = (n: number) => [...Array<string>(n).fill('audio.transcribe'), ...Array<string>(n).fill('text.embed')].sort();

    // Night 1: four recordings and the corrupt file, left out.
    const first = await deflow(dir, emulator, night, fromDotEnv);
    expect(first.code, first.stderr).toBe(6);
    expect(first.stderr).toMatch(/inbox\/zz-corrupt\.mp3: expected .*, got content of an unrecognised format/);
    const night1 = await newJobs();
    expect(tasks(night1)).toEqual(pairsOf(4));
    expect(spent(night1)).toBeLessThanOrEqual(Number(cap));
    expect((await deflow(dir, emulator, ['gc', 'nightly/workflow.yaml'], fromDotEnv)).code).toBe(0);

    // Night 2: three more; killed (kill -9) once its three transcriptions are submitted and journalled
    // (their jobs still running at the service), then a bare `deflow run`.
    await addRecordings(inbox, 4, 3);
    const runsDir = join(dir, 'nightly', '.deflow', 'runs');
    const runsBefore = new Set(await readdir(runsDir));
    const submittedInJournal = async (): Promise<number> => {
      const run = (await readdir(runsDir)).find((name) => !runsBefore.has(name));
      if (run === undefined) return 0;
      const journal = await readFile(join(runsDir, run, 'journal.jsonl'), 'utf8').catch(() => '');
      return journal.split('\n').filter((line) => line.includes('"t":"submitted"')).length;
    };
    const killed = await deflow(dir, emulator, night, {
      ...fromDotEnv,
      started: (child) => {
        void (async () => {
          while ((await submittedInJournal()) < 3 && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
          child.kill('SIGKILL');
        })();
      },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const resumed = await deflow(dir, emulator, ['run', 'nightly/workflow.yaml'], fromDotEnv);
    expect(resumed.code, resumed.stderr).toBe(6);
    expect(resumed.stderr).toMatch(/^resuming run \S+: \d+ done, 3 in flight \(polled, not resubmitted\)/m);
    // The options of the killed run were journalled: the bare run keeps going, under the same cap.
    expect(resumed.stderr).toContain('--keep-going');
    expect(resumed.stderr).toContain(`--max-cost ${cap}`);
    const night2 = await newJobs();
    expect(tasks(night2)).toEqual(pairsOf(3));
    expect(spent(night2)).toBeLessThanOrEqual(Number(cap));
    expect((await deflow(dir, emulator, ['gc', 'nightly/workflow.yaml'], fromDotEnv)).code).toBe(0);

    // Night 3: three more; by now the whole folder costs more than the cap, and the night runs.
    await addRecordings(inbox, 7, 3);
    const whole = await deflowJson(dir, emulator, ['quote', 'nightly/workflow.yaml', '--keep-going', '--format', 'json', '--no-cache'], fromDotEnv);
    expect(whole.to_pay.high).toBeGreaterThan(Number(cap));
    const third = await deflow(dir, emulator, night, fromDotEnv);
    expect(third.code, third.stderr).toBe(6);
    const night3 = await newJobs();
    expect(tasks(night3)).toEqual(pairsOf(3));
    expect(spent(night3)).toBeLessThanOrEqual(Number(cap));
    expect((await readdir(join(dir, 'nightly', 'out', 'transcripts'))).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `rec-${String(i).padStart(2, '0')}.txt`));
    // Nothing was paid twice over the three nights.
    expect(new Set(seen.map((j) => `${j.task} ${j.params_digest}`)).size).toBe(seen.length);

    // A broken secret: everything is cached, and the run still fails on the key (the environment wins over .env).
    const wrong = await deflow(dir, emulator, night, { env: { DEAPI_API_KEY: 'sk-wrong-0000000000' } });
    expect(wrong.code, wrong.stderr).toBe(3);
    expect(wrong.stderr).toContain('E_AUTH');
    expect(wrong.stderr).not.toContain(emulator.key);
    expect(await newJobs()).toEqual([]);
  }, 420_000);
});

async function deflowJson(dir: string, emulator: EmulatorProcess, args: readonly string[], options: { env?: Record<string, string | undefined> }): Promise<{ to_pay: { high: number } }> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name as keyof typeof env];
  const child = spawn(process.execPath, [cli.main, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as { to_pay: { high: number } };
}
