/**
 * `npm run bench -- resume [--n 10000] [--time-scale 10] [--rpm 600] [--seed 1]`
 *
 * Kill and resume a big run. N lines through a two-step chain (speak each line, then
 * transcribe the speech) on the emulator, on a virtual clock shared with the client, which
 * runs `runDurably` (what `deflow run` calls) in a child process. First an uninterrupted run
 * (fresh emulator, fresh state folder) for the reference makespan; then the same run on a
 * fresh emulator, SIGKILLed once a seeded random share between 30 % and 70 % of its 2N jobs
 * is done, and started again on the same state folder until it finishes. Before the restart
 * the journal is padded with `status` records (of jobs in flight) to at least 100,000
 * records, so the restart replays a journal that size.
 *
 * Figures: `duplicates` (jobs the emulator created beyond those of the uninterrupted run for
 * the same task and parameters, file contents included), `unknowns` (intents without a request id at the kill, reported and not
 * resubmitted), `restart_to_first_request_s` (real seconds from spawning the resumed process
 * to the emulator's first request from it), `extra_makespan_s` (virtual seconds from the
 * first start to the resumed run's end, minus the uninterrupted makespan; it includes the
 * restart itself).
 */
import { spawn } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeapiClient } from '../src/client/deapi-client.js';
import { type RunningEmulator, startEmulator } from '../src/emulator/start-emulator.js';
import { readJournal } from '../src/engine/journal/journal-replay.js';
import { runDurably } from '../src/engine/run-durably.js';
import { listRuns, runPaths } from '../src/engine/journal/state-dir.js';
import { GatedGovernor } from '../src/engine/run/submit-gate.js';
import { validateWorkflow } from '../src/workflow/validate/validate-workflow.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { printTable, readNumberArg, round } from './_bench-util.js';
import { anchoredClock, anchorNow, type ClockAnchor } from './_child-process.js';

const D1_MS = 20_000;
const D2_MS = 10_000;
const JOURNAL_RECORDS = 100_000;

interface ChildPayload {
  readonly url: string;
  readonly apiKey: string;
  readonly anchor: ClockAnchor;
  readonly dir: string;
  readonly stateDir: string;
}

/** The last line a child prints when its run ends. */
interface ChildEnd {
  readonly started: number;
  readonly finished: number;
  readonly status: string;
  readonly done: number;
  readonly unknown: number;
  readonly resumed: boolean;
}

interface Session {
  readonly end: ChildEnd | null;
  /** Real ms from spawn to the emulator's first request after it. */
  readonly firstRequestMs: number | null;
  /** Real ms since the child's process start: modules loaded, workflow validated, journal opened and replayed. */
  readonly phases: { readonly loaded: number; readonly validated: number; readonly opened: number } | null;
  /** Virtual ms when the run started (its run-started event) or was killed. */
  readonly startedAt: number | null;
  readonly killedAt: number | null;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  linkBenchSchemas();
  const n = readNumberArg(args, 'n', 10_000);
  const timeScale = readNumberArg(args, 'time-scale', 10);
  const rpm = readNumberArg(args, 'rpm', 600);
  const seed = readNumberArg(args, 'seed', 1);
  const killShare = 0.3 + 0.4 * seededShare(seed);
  const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-resume-'));
  try {
    await prepareWorkspace(dir, n);
    process.stdout.write(`resume: ${n} lines × (speak ${D1_MS / 1000} s → transcribe ${D2_MS / 1000} s), ${rpm} rpm per endpoint; time scale ${timeScale}; kill at ${round(killShare * 100, 1)} % of the jobs done\n`);

    const reference = await withEmulator(timeScale, rpm, async (emulator, anchor) => ({
      ...(await runSession(emulator, anchor, dir, join(dir, '.deflow-reference'), null)),
      jobs: countJobs(emulator),
    }));
    if (reference.end === null) throw new Error('the uninterrupted run did not finish');
    const referenceMakespan = (reference.end.finished - reference.end.started) / 1000;

    const killed = await withEmulator(timeScale, rpm, async (emulator, anchor) => {
      const stateDir = join(dir, '.deflow-killed');
      const sessions: Session[] = [await runSession(emulator, anchor, dir, stateDir, Math.ceil(2 * n * killShare))];
      const records = await padJournal(stateDir);
      for (let i = 0; i < 3 && sessions.at(-1)!.end === null; i++) sessions.push(await runSession(emulator, anchor, dir, stateDir, null));
      return { sessions, records, duplicates: countExcess(countJobs(emulator), reference.jobs) };
    });
    const first = killed.sessions[0]!;
    const resumed = killed.sessions[1]!;
    const last = killed.sessions.at(-1)!.end;
    if (last === null || first.startedAt === null) throw new Error('the resumed run did not finish');
    const total = (last.finished - first.startedAt) / 1000;
    const figures = {
      n,
      time_scale: timeScale,
      kill_share: round(killShare, 3),
      duplicates: killed.duplicates,
      unknowns: last.unknown,
      journal_records: killed.records,
      restart_to_first_request_s: resumed.firstRequestMs === null ? null : round(resumed.firstRequestMs / 1000, 3),
      // Where that time went, real seconds since the resumed process started.
      restart_phases_s: resumed.phases === null ? null : {
        node_and_modules: round(resumed.phases.loaded / 1000, 3),
        validate_workflow: round((resumed.phases.validated - resumed.phases.loaded) / 1000, 3),
        open_and_replay_journal: round((resumed.phases.opened - resumed.phases.validated) / 1000, 3),
      },
      makespan_uninterrupted_s: round(referenceMakespan, 1),
      makespan_with_kill_s: round(total, 1),
      extra_makespan_s: round(total - referenceMakespan, 1),
      done: last.done,
      status: last.status,
    };
    printTable(
      ['duplicates', 'unknowns', 'journal records', 'restart→1st request s', 'makespan s', 'with kill s', 'extra s'],
      [[figures.duplicates, figures.unknowns, figures.journal_records, String(figures.restart_to_first_request_s), figures.makespan_uninterrupted_s, figures.makespan_with_kill_s, figures.extra_makespan_s]],
    );
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function withEmulator<T>(timeScale: number, rpm: number, use: (emulator: RunningEmulator, anchor: ClockAnchor) => Promise<T>): Promise<T> {
  const anchor = anchorNow(timeScale);
  const rate = { rpm, rpd: null };
  const emulator = await startEmulator({
    clock: anchoredClock(anchor),
    config: {
      time_scale: timeScale,
      balance: 1_000_000,
      rate_limits: { endpoints: { 'audio/speech': rate, 'audio/transcriptions': rate }, jobs_status: null },
      jobs: { durations: { 'audio/speech': D1_MS, 'audio/transcriptions': D2_MS }, jitter: 0.3, scale_by_input: false },
    },
  });
  try {
    return await use(emulator, anchor);
  } finally {
    await emulator.close();
  }
}

/** One process of the run; SIGKILLed once `killAfterDone` jobs are done (null: runs to its end). */
function runSession(emulator: RunningEmulator, anchor: ClockAnchor, dir: string, stateDir: string, killAfterDone: number | null): Promise<Session> {
  const payload: ChildPayload = { url: emulator.url, apiKey: emulator.keys.api, anchor, dir, stateDir };
  const clock = anchoredClock(anchor);
  const requestsBefore = emulator.stats().requests;
  const spawnedAt = performance.now();
  let firstRequestMs: number | null = null;
  const watch = setInterval(() => {
    if (firstRequestMs === null && emulator.stats().requests > requestsBefore) {
      firstRequestMs = performance.now() - spawnedAt;
      clearInterval(watch);
    }
  }, 2);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', JSON.stringify(payload)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let buffer = '';
  let end: ChildEnd | null = null;
  let startedAt: number | null = null;
  let killedAt: number | null = null;
  let phases: Session['phases'] = null;
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const message = parseLine(line);
      if (message?.['started'] !== undefined && startedAt === null) startedAt = Number(message['started']);
      if (message?.['end'] !== undefined) end = message['end'] as ChildEnd;
      if (message?.['phases'] !== undefined) phases = message['phases'] as Session['phases'];
      if (killAfterDone !== null && killedAt === null && Number(message?.['done'] ?? 0) >= killAfterDone) {
        killedAt = clock.now();
        child.kill('SIGKILL');
      }
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => {
      clearInterval(watch);
      resolve({ end, firstRequestMs, startedAt, killedAt, phases });
    });
  });
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Cuts a torn tail, then appends `status` records of jobs in flight up to {@link JOURNAL_RECORDS}. */
async function padJournal(stateDir: string): Promise<number> {
  const [latest] = await listRuns(stateDir);
  if (latest === undefined) return 0;
  const path = runPaths(stateDir, latest.runId).journal;
  const read = await readJournal(path);
  await truncate(path, read.validBytes);
  const settled = new Set(read.records.flatMap((r) => (r.t === 'done' || r.t === 'failed' ? [r.node] : [])));
  const inFlight = [...new Set(read.records.flatMap((r) => (r.t === 'submitted' && !settled.has(r.node) ? [r.node] : [])))];
  const missing = JOURNAL_RECORDS - read.records.length;
  if (missing <= 0 || inFlight.length === 0) return read.records.length;
  const ts = read.records.at(-1)?.ts ?? Date.now();
  const lines: string[] = [];
  for (let i = 0; i < missing; i++) {
    lines.push(JSON.stringify({ v: 1, ts, t: 'status', node: inFlight[i % inFlight.length], status: 'processing', progress: (i % 100) / 100 }));
  }
  await appendFile(path, `${lines.join('\n')}\n`);
  return JOURNAL_RECORDS;
}

/** Jobs by task and parameters (file contents included). */
function countJobs(emulator: RunningEmulator): Map<string, number> {
  const counts = new Map<string, number>();
  for (const job of emulator.jobs()) counts.set(`${job.task} ${job.params_digest}`, (counts.get(`${job.task} ${job.params_digest}`) ?? 0) + 1);
  return counts;
}

/**
 * Jobs created beyond what the uninterrupted run created for the same parameters. Counted
 * against the reference, not as repeats: speech of two lines of equal length is the same
 * file, so their two transcriptions are rightly two jobs with one digest.
 */
function countExcess(counts: ReadonlyMap<string, number>, reference: ReadonlyMap<string, number>): number {
  let excess = 0;
  for (const [key, n] of counts) excess += Math.max(0, n - (reference.get(key) ?? 0));
  return excess;
}

/** A share in [0, 1) from a seed (mulberry32, one draw). */
function seededShare(seed: number): number {
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

async function prepareWorkspace(dir: string, n: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const lines = Array.from({ length: n }, (_, i) => `Line ${i + 1} of the resume benchmark, spoken once.`);
  await writeFile(join(dir, 'lines.txt'), `${lines.join('\n')}\n`);
  const workflow = [
    'version: 1',
    'name: bench-resume',
    'steps:',
    '  speak:',
    '    task: audio.speech',
    '    for_each: { file: lines.txt }',
    '    with: { text: "${{ item.value }}", model: Kokoro, voice: af_sky, lang: en-us }',
    '  transcribe:',
    '    task: audio.transcribe',
    '    for_each: speak',
    '    with: { source_file: "${{ steps.speak.result_url }}", model: WhisperLargeV3, include_ts: false, return_result_in_response: true }',
    '',
  ].join('\n');
  await writeFile(join(dir, 'resume.yaml'), workflow);
}

// ---- child process: one session of the run ----

async function child(payload: ChildPayload): Promise<void> {
  const loaded = performance.now();
  const clock = anchoredClock(payload.anchor);
  const validation = await validateWorkflow(join(payload.dir, 'resume.yaml'), { offline: true });
  const validated = performance.now();
  if (!validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
  const client = new DeapiClient({ apiKey: payload.apiKey, baseUrl: payload.url, clock, governor: new GatedGovernor({ clock }) });
  let done = 0;
  let started = 0;
  let finished = 0;
  const outcome = await runDurably({
    graph: validation.graph,
    client,
    clock,
    stateDir: payload.stateDir,
    onOpened: () => {
      process.stdout.write(`${JSON.stringify({ phases: { loaded, validated, opened: performance.now() } })}\n`);
    },
    onEvent: (event) => {
      if (event.type === 'run-started') {
        started = event.ts;
        process.stdout.write(`${JSON.stringify({ started: event.ts })}\n`);
      } else if (event.type === 'item-done' && ++done % 50 === 0) process.stdout.write(`${JSON.stringify({ done })}\n`);
      else if (event.type === 'run-finished') finished = event.ts;
    },
  });
  await client.close();
  const end: ChildEnd = { started, finished, status: outcome.status, done: outcome.counts.done, unknown: outcome.counts.unknown, resumed: outcome.resumed };
  process.stdout.write(`${JSON.stringify({ end })}\n`);
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  await child(JSON.parse(process.argv[3] ?? '{}') as ChildPayload);
  process.exit(0);
}
