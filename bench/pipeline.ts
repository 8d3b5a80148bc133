/**
 * `npm run bench -- pipeline [--n 1000] [--time-scale 50] [--status-rpm 600] [--modes counted,free]`
 *
 * N items through a two-step chain (transcribe → speak) on the emulator, deflow (`runWorkflow`)
 * against the naive runner of performance.md §7 (p-limit 8, the whole first step before the
 * second, 1 s polling, a fixed 5 s sleep on 429, undici fetch, uploads read into memory), each
 * against a fresh emulator and in its own child process (its own CPU and peak RSS), on a
 * virtual clock both processes share. Emulator: 60 rpm per submission endpoint, jobs of 30 s
 * and 10 s ± 30 % (not scaled by input). Two modes for the job-status pool: `counted` (polls
 * throttled in their own pool at `--status-rpm`, the emulator's default 600) and `free` (not
 * throttled). Times are virtual seconds.
 *
 * Lower bound (performance.md §5, with one bucket per pool as the emulator has): the larger of
 * the critical path d1 + d2, the last submission of each step's pool plus the rest of its
 * chain, (⌈N/R⌉ − 1)·W + d1 + d2 and d1 + (⌈N/R⌉ − 1)·W + d2, and when polls count, the polls
 * of one per job, (⌈2N/R_status⌉ − 1)·W. Targets: ≤ 1.10 × bound, 0 429s, ≤ 2.5 requests per job.
 */
import { link, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { FormData, fetch } from 'undici';
import { DeapiClient } from '../src/client/deapi-client.js';
import type { Clock } from '../src/common/clock.js';
import { makeMp3 } from '../src/emulator/media/index.js';
import { startEmulator } from '../src/emulator/start-emulator.js';
import type { RunEvent } from '../src/engine/events.js';
import { runWorkflow } from '../src/engine/run-workflow.js';
import { GatedGovernor } from '../src/engine/run/submit-gate.js';
import { validateWorkflow } from '../src/workflow/validate/validate-workflow.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { printTable, readNumberArg, round } from './_bench-util.js';
import { anchoredClock, anchorNow, type ClockAnchor, type ChildReport, ownUsage, runChild } from './_child-process.js';

const D1_MS = 30_000;
const D2_MS = 10_000;
const RPM = 60;
const WINDOW_S = 60;

type Mode = 'counted' | 'free';
type ClientName = 'deflow' | 'naive';

interface ChildPayload {
  readonly client: ClientName;
  readonly url: string;
  readonly apiKey: string;
  readonly anchor: ClockAnchor;
  readonly dir: string;
}

interface Figures {
  readonly makespan_s: number;
  readonly lower_bound_s: number;
  readonly vs_bound: number;
  readonly http_429: number;
  readonly requests_per_job: number;
  readonly polls_per_job: number;
  readonly peak_rss_mb: number;
  readonly cpu_ms: number;
  readonly done: number;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  linkBenchSchemas();
  const n = readNumberArg(args, 'n', 1000);
  const timeScale = readNumberArg(args, 'time-scale', 50);
  const statusRpm = readNumberArg(args, 'status-rpm', 600);
  const modesArg = args.indexOf('--modes') >= 0 ? (args[args.indexOf('--modes') + 1] ?? '') : 'counted,free';
  const modes = modesArg.split(',').filter((m): m is Mode => m === 'counted' || m === 'free');
  const clients: ClientName[] = args.includes('--deflow-only') ? ['deflow'] : ['deflow', 'naive'];
  const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-pipeline-'));
  try {
    await prepareWorkspace(dir, n);
    process.stdout.write(`pipeline: ${n} items × (transcribe 30 s → speak 10 s, ±30 %), ${RPM} rpm per endpoint; time scale ${timeScale}\n`);
    const results: Partial<Record<Mode, Partial<Record<ClientName, Figures>>>> = {};
    for (const mode of modes) {
      results[mode] = {};
      for (const client of clients) results[mode][client] = await runOnce(client, mode, n, timeScale, statusRpm, dir);
    }
    const rows = modes.flatMap((mode) =>
      clients.map((client) => {
        const f = results[mode]![client]!;
        return [mode, client, f.makespan_s, f.lower_bound_s, f.vs_bound, f.http_429, f.requests_per_job, f.polls_per_job, f.peak_rss_mb, f.done];
      }),
    );
    printTable(['polls', 'client', 'makespan s', 'bound s', 'x bound', '429s', 'req/job', 'polls/job', 'peak MiB', 'done'], rows);
    const primary = results[modes[0] ?? 'counted']?.deflow;
    return {
      n,
      time_scale: timeScale,
      status_rpm: statusRpm,
      primary_mode: modes[0],
      makespan_s: primary?.makespan_s,
      lower_bound_s: primary?.lower_bound_s,
      vs_bound: primary?.vs_bound,
      http_429: primary?.http_429,
      requests_per_job: primary?.requests_per_job,
      peak_rss_mb: primary?.peak_rss_mb,
      modes: results,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runOnce(client: ClientName, mode: Mode, n: number, timeScale: number, statusRpm: number, dir: string): Promise<Figures> {
  const rate = { rpm: RPM, rpd: null };
  const anchor = anchorNow(timeScale);
  const emulator = await startEmulator({
    clock: anchoredClock(anchor),
    config: {
      time_scale: timeScale,
      balance: 1_000_000,
      rate_limits: {
        endpoints: { 'audio/transcriptions': rate, 'audio/speech': rate },
        jobs_status: mode === 'counted' ? { rpm: statusRpm, rpd: null } : null,
      },
      jobs: { durations: { 'audio/transcriptions': D1_MS, 'audio/speech': D2_MS }, jitter: 0.3, scale_by_input: false },
    },
  });
  try {
    const payload: ChildPayload = { client, url: emulator.url, apiKey: emulator.keys.api, anchor, dir };
    // undici's fetch warns about listeners on pooled sockets under the naive runner's FormData uploads.
    const report = await runChild(fileURLToPath(import.meta.url), payload, client === 'naive' ? { execArgv: ['--no-warnings'] } : {});
    const stats = emulator.stats();
    const jobs = 2 * n;
    const apiRequests = stats.requests - stats.downloads;
    const lowerBound = lowerBoundS(n, mode === 'counted' ? statusRpm : null);
    const makespan = Number(report.makespan_ms) / 1000;
    return {
      makespan_s: round(makespan, 1),
      lower_bound_s: lowerBound,
      vs_bound: round(makespan / lowerBound, 3),
      http_429: stats.by_status['429'] ?? 0,
      requests_per_job: round(apiRequests / jobs, 3),
      polls_per_job: round(stats.polls / jobs, 3),
      peak_rss_mb: report.peak_rss_mb,
      cpu_ms: round(report.cpu_ms, 0),
      done: Number(report.done),
    };
  } finally {
    await emulator.close();
  }
}

/** Virtual seconds; see the header comment. */
export function lowerBoundS(n: number, statusRpm: number | null): number {
  const windows = Math.ceil(n / RPM) - 1;
  const d1 = D1_MS / 1000;
  const d2 = D2_MS / 1000;
  const bounds = [d1 + d2, windows * WINDOW_S + d1 + d2, d1 + windows * WINDOW_S + d2];
  if (statusRpm !== null) bounds.push((Math.ceil((2 * n) / statusRpm) - 1) * WINDOW_S);
  return Math.max(...bounds);
}

async function prepareWorkspace(dir: string, n: number): Promise<void> {
  await mkdir(join(dir, 'clips'), { recursive: true });
  const source = join(dir, 'clip.mp3');
  await writeFile(source, makeMp3(3));
  for (let i = 0; i < n; i++) await link(source, join(dir, 'clips', `c${String(i).padStart(5, '0')}.mp3`));
  const workflow = [
    'version: 1',
    'name: bench-pipeline',
    'steps:',
    '  transcribe:',
    '    task: audio.transcribe',
    '    for_each: { glob: "clips/*.mp3" }',
    '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false, return_result_in_response: true }',
    '  speak:',
    '    task: audio.speech',
    '    for_each: transcribe',
    '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
    '',
  ].join('\n');
  await writeFile(join(dir, 'pipeline.yaml'), workflow);
}

// ---- child process ----

async function child(payload: ChildPayload): Promise<Record<string, unknown>> {
  const clock = anchoredClock(payload.anchor);
  const figures = payload.client === 'deflow' ? await runDeflow(payload, clock) : await runNaive(payload, clock);
  return { ...figures, ...ownUsage() };
}

async function runDeflow(payload: ChildPayload, clock: Clock): Promise<{ makespan_ms: number; done: number }> {
  const validation = await validateWorkflow(join(payload.dir, 'pipeline.yaml'), { offline: true });
  if (!validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
  const client = new DeapiClient({ apiKey: payload.apiKey, baseUrl: payload.url, clock, governor: new GatedGovernor({ clock }) });
  let started = 0;
  let finished = 0;
  const onEvent = (event: RunEvent): void => {
    if (event.type === 'run-started') started = event.ts;
    if (event.type === 'run-finished') finished = event.ts;
  };
  const outcome = await runWorkflow({ graph: validation.graph, client, clock, stateDir: join(payload.dir, `.deflow-${process.pid}`), onEvent });
  await client.close();
  return { makespan_ms: finished - started, done: outcome.counts.done };
}

/** The naive runner of performance.md §7. */
async function runNaive(payload: ChildPayload, clock: Clock): Promise<{ makespan_ms: number; done: number }> {
  const limit = pLimit(8);
  const headers = { authorization: `Bearer ${payload.apiKey}`, accept: 'application/json' };
  const send = async (path: string, body?: () => FormData): Promise<Record<string, unknown>> => {
    for (;;) {
      const response = await fetch(`${payload.url}${path}`, body ? { method: 'POST', headers, body: body() } : { headers });
      if (response.status === 429) {
        await response.arrayBuffer();
        await clock.sleep(5000);
        continue;
      }
      const json = (await response.json()) as { data?: Record<string, unknown> };
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
      return json.data ?? {};
    }
  };
  const job = async (path: string, body: () => FormData): Promise<Record<string, unknown>> => {
    const id = String((await send(path, body)).request_id);
    for (;;) {
      await clock.sleep(1000);
      const status = await send(`/api/v2/jobs/${id}`);
      if (status.status === 'done' || status.status === 'error') return status;
    }
  };
  const { readdir } = await import('node:fs/promises');
  const files = (await readdir(join(payload.dir, 'clips'))).sort();
  const t0 = clock.now();
  let done = 0;
  const transcripts = await Promise.all(
    files.map((name) =>
      limit(async () => {
        const bytes = await readFile(join(payload.dir, 'clips', name));
        const status = await job('/api/v2/audio/transcriptions', () => {
          const form = new FormData();
          form.set('source_file', new Blob([bytes]), name);
          form.set('model', 'WhisperLargeV3');
          form.set('include_ts', 'false');
          form.set('return_result_in_response', 'true');
          return form;
        });
        if (status.status === 'done') done++;
        return String(status.result ?? '');
      }),
    ),
  );
  await Promise.all(
    transcripts.map((text) =>
      limit(async () => {
        const status = await job('/api/v2/audio/speech', () => {
          const form = new FormData();
          for (const [key, value] of Object.entries({ text, model: 'Kokoro', voice: 'af_sky', lang: 'en-us', speed: '1', format: 'mp3', sample_rate: '24000' })) form.set(key, value);
          return form;
        });
        if (status.status === 'done') done++;
      }),
    ),
  );
  return { makespan_ms: clock.now() - t0, done };
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await child(JSON.parse(process.argv[3] ?? '{}') as ChildPayload);
  process.stdout.write(`${JSON.stringify(result satisfies Partial<ChildReport>)}\n`);
  process.exit(0);
}
