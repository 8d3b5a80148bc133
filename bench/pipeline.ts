/**
 * `npm run bench -- pipeline [--n 60,200,1000] [--tiers premium,basic] [--basic-n 10,60]
 *   [--time-scale S] [--clients deflow,fair8,fair32] [--fair8-max 200]`
 *
 * Time scale: by default 2 up to 60 items, 5 up to 200, 10 beyond, and 50 on Basic (a compressed
 * clock multiplies every real cost of a client, start-up, fsync and CPU, by the scale: at 50 a
 * real second is 50 virtual ones, a large share of a 46 s bound; measured on a loaded 2-core
 * machine, 60 items took 1.90 × the bound at scale 10 and 1.19 × at scale 2 with the same
 * code). Basic's bound is the day's quota (about 570 s), where a scale of 50 costs little. fair8 runs up to `--fair8-max`
 * items (at 1,000 it needs 2,000 jobs × ~40 s / 8 in flight: hours of virtual time).
 *
 * N clips through transcribe → speak on the emulator at the public docs' published tiers
 * (`tier: premium`: 300 per minute on every pool, job status included; `tier: basic`:
 * transcriptions 1/min and 10/day, speech 5/min and 300/day, job status 50/min and 200/day).
 * deflow (`runWorkflow`) against the fair hand-written client of bench/_fair-client.ts at
 * p-limit 8 and 32 (honours Retry-After, backs off on 5xx, polls every 2 s), each against a fresh
 * emulator, in its own child process, on a virtual clock both processes share. Jobs last 30 s and
 * 10 s ± 30 %. Every count (requests, 429s, status requests) is read from `GET /_emulator/stats`,
 * every job's real duration from `GET /_emulator/jobs`.
 *
 * Lower bound of a run, from the durations its jobs really had (d1: transcriptions, d2: speech;
 * R1, R2, Rs: the tier's per-minute rates of the two pools and of job status; W = 60 s), the
 * largest of: the longest item's chain, max over items of d1 + d2 (each client reports which
 * transcription and speech jobs form an item, by request id; the durations are the emulator's);
 * (⌈N/R1⌉ − 1)·W + min d1 + min d2 (the last transcription sent, then its chain); min d1 +
 * (⌈N/R2⌉ − 1)·W + min d2; and one status request per job, (⌈2N/Rs⌉ − 1)·W. On Basic the day's
 * quota bounds what can finish: the run is measured for one virtual day (deflow stops at the
 * daily limit by itself, the fair client is stopped at the day's end), and the bound is that of
 * the items the day's quotas allow. On Basic deflow runs with signed webhooks (`--webhook-url`,
 * a receiver in its process): a verified delivery is the job's status, no status request needed.
 * The fair client polls, as the docs' simplest flow does.
 *
 * Targets (issue 16): Premium, makespan ≤ 1.10 × bound at every N, 0 429s, ≤ 1.3 status requests
 * per job; Basic, the day's quota finished, ≤ 1.1 status requests per job.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeapiClient } from '../src/client/deapi-client.js';
import type { Clock } from '../src/common/clock.js';
import { makeMp3 } from '../src/emulator/media/index.js';
import { type RunningEmulator, startEmulator } from '../src/emulator/start-emulator.js';
import type { RunEvent } from '../src/engine/contracts/events.js';
import { runWorkflow } from '../src/engine/run-workflow.js';
import { GatedGovernor } from '../src/engine/run/submit-gate.js';
import { startWebhookHints } from '../src/engine/webhooks/webhook-hints.js';
import { validateWorkflow } from '../src/workflow/validate/validate-workflow.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { printTable, readNumberArg, round, transcribeThenSpeakWorkflow } from './_bench-util.js';
import { anchoredClock, anchorNow, type ClockAnchor, type ChildReport, ownUsage, runChild } from './_child-process.js';
import { createFairClient, DeadlinePassed } from './_fair-client.js';

const D1_MS = 30_000;
const D2_MS = 10_000;
const WINDOW_S = 60;
const DAY_MS = 86_400_000;

type Tier = 'premium' | 'basic';
type ClientName = 'deflow' | 'fair8' | 'fair32';

/** Per-minute and per-day rates of the pools this workload uses (rate-tiers.ts, from the docs). */
const TIER_RATES: Record<Tier, { transcribe: number; speak: number; status: number; transcribePerDay: number | null }> = {
  premium: { transcribe: 300, speak: 300, status: 300, transcribePerDay: null },
  basic: { transcribe: 1, speak: 5, status: 50, transcribePerDay: 10 },
};

interface ChildPayload {
  readonly client: ClientName;
  readonly url: string;
  readonly apiKey: string;
  readonly anchor: ClockAnchor;
  readonly dir: string;
  /** Virtual epoch ms after which the fair client stops (Basic: one day). */
  readonly deadline: number | null;
  /** deflow runs with signed webhooks (a receiver in its process). */
  readonly webhooks: boolean;
}

/**
 * The scaled cells (`--scaled`): jobs whose duration grows with their input
 * (`scale_by_input: true`), clips of 20-120 s, 20 submissions a minute per pool, the status pool
 * at 60 a minute or unthrottled. A transcription lasts 30 s per minute of audio, a speech 10 s
 * per 500 characters (± 30 %).
 */
interface ScaledCell {
  /** Status requests a minute, or null: unthrottled. */
  readonly statusRpm: number | null;
}

const SCALED_RPM = 20;
const SCALED_D1_MS = 30_000;

/** One measured cell. */
export interface PipelineFigures {
  readonly makespan_s: number;
  readonly lower_bound_s: number;
  readonly vs_bound: number;
  readonly http_429: number;
  readonly requests_per_job: number;
  readonly status_per_job: number;
  readonly jobs_done: number;
  readonly jobs_possible: number;
  readonly peak_rss_mb: number;
  readonly cpu_ms: number;
  /** Median and 90th percentile of the delay from a job's end (the emulator's) to the client seeing it done, s. */
  readonly notice_p50_s?: number;
  readonly notice_p90_s?: number;
}

interface EmulatorStats {
  readonly requests: number;
  readonly by_status: Record<string, number>;
  readonly polls: number;
  readonly downloads: number;
}

interface EmulatorJob {
  readonly request_id: string;
  readonly task: string;
  readonly status: string;
  readonly created_at: string;
  readonly finished_at: string | null;
}

const list = (args: readonly string[], name: string, fallback: string): string[] => {
  const i = args.indexOf(`--${name}`);
  return (i >= 0 ? (args[i + 1] ?? '') : fallback).split(',').filter((s) => s !== '');
};

export async function run(args: string[]): Promise<Record<string, unknown>> {
  linkBenchSchemas();
  const fixedScale = readNumberArg(args, 'time-scale', 0);
  const scaleFor = (tier: Tier, n: number): number => fixedScale || (tier === 'basic' ? 50 : n > 200 ? 10 : n > 60 ? 5 : 2);
  const fair8Max = readNumberArg(args, 'fair8-max', 200);
  const tiers = list(args, 'tiers', 'premium,basic').filter((t): t is Tier => t === 'premium' || t === 'basic');
  if (args.includes('--scaled')) return runScaled(args);
  const sizes: Record<Tier, number[]> = { premium: list(args, 'n', '60,200,1000').map(Number), basic: list(args, 'basic-n', '10,60').map(Number) };
  const clients = list(args, 'clients', 'deflow,fair8,fair32').filter((c): c is ClientName => c === 'deflow' || c === 'fair8' || c === 'fair32');
  const results: Record<string, Partial<Record<ClientName, PipelineFigures>>> = {};
  const rows: (string | number)[][] = [];
  for (const tier of tiers) {
    for (const n of sizes[tier]) {
      const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-pipeline-'));
      try {
        await prepareWorkspace(dir, n);
        const cell: Partial<Record<ClientName, PipelineFigures>> = {};
        for (const client of clients) {
          if (client === 'fair8' && n > fair8Max) continue;
          const f = await runOnce(client, tier, n, scaleFor(tier, n), dir);
          cell[client] = f;
          rows.push([tier, n, client, f.makespan_s, f.lower_bound_s, f.vs_bound, f.http_429, f.requests_per_job, f.status_per_job, `${f.jobs_done}/${f.jobs_possible}`, f.peak_rss_mb]);
          process.stdout.write(`  ${tier} n=${n} ${client}: ${f.vs_bound} × bound, ${f.http_429} 429s, ${f.status_per_job} status/job\n`);
        }
        results[`${tier}:${n}`] = cell;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  process.stdout.write('pipeline: transcribe 30 s → speak 10 s (± 30 %), published tiers\n');
  printTable(['tier', 'n', 'client', 'makespan s', 'bound s', 'x bound', '429s', 'req/job', 'status/job', 'jobs done', 'peak MiB'], rows);
  const cells = Object.entries(results).map(([key, cell]) => {
    const [tier, n] = key.split(':') as [Tier, string];
    const fair = (['fair8', 'fair32'] as const).map((c) => cell[c]).filter((f): f is PipelineFigures => f !== undefined);
    // The better baseline: more jobs finished, then the smaller makespan.
    const best = fair.sort((a, b) => b.jobs_done - a.jobs_done || a.makespan_s - b.makespan_s)[0];
    const bestName = best === cell.fair8 ? 'fair8' : 'fair32';
    return { tier, n: Number(n), time_scale: scaleFor(tier, Number(n)), deflow: cell.deflow, fair8: cell.fair8 ?? null, fair32: cell.fair32 ?? null, best_fair: best ? bestName : null };
  });
  return { d1_s: D1_MS / 1000, d2_s: D2_MS / 1000, jitter: 0.3, cells };
}

async function runOnce(client: ClientName, tier: Tier, n: number, timeScale: number, dir: string, scaled?: ScaledCell): Promise<PipelineFigures> {
  const anchor = anchorNow(timeScale);
  const limits = scaled === undefined ? {} : { rate_limits: { endpoints: { 'audio/transcriptions': { rpm: SCALED_RPM, rpd: null }, 'audio/speech': { rpm: SCALED_RPM, rpd: null } }, jobs_status: scaled.statusRpm === null ? null : { rpm: scaled.statusRpm } } };
  const emulator = await startEmulator({
    clock: anchoredClock(anchor),
    config: {
      time_scale: timeScale,
      ...(scaled === undefined ? { tier } : {}),
      ...limits,
      balance: 1_000_000,
      // deflow's receiver listens on loopback over http (Basic).
      webhooks: { allow_http: true },
      jobs:
        scaled === undefined
          ? { durations: { 'audio/transcriptions': D1_MS, 'audio/speech': D2_MS }, jitter: 0.3, scale_by_input: false }
          : { durations: { 'audio/transcriptions': SCALED_D1_MS, 'audio/speech': D2_MS }, jitter: 0.3, scale_by_input: true },
    },
  });
  try {
    const deadline = tier === 'basic' ? emulator.clock.now() + DAY_MS : null;
    const payload: ChildPayload = { client, url: emulator.url, apiKey: emulator.keys.api, anchor, dir, deadline, webhooks: tier === 'basic' };
    const report = await runChild(fileURLToPath(import.meta.url), payload, client === 'deflow' ? {} : { execArgv: ['--no-warnings'] });
    if (scaled !== undefined) return await figures(emulator, tier, n, report, { transcribe: SCALED_RPM, speak: SCALED_RPM, status: scaled.statusRpm ?? Number.POSITIVE_INFINITY, transcribePerDay: null });
    return await figures(emulator, tier, n, report);
  } finally {
    await emulator.close();
  }
}

async function figures(emulator: RunningEmulator, tier: Tier, n: number, report: ChildReport, given?: (typeof TIER_RATES)[Tier]): Promise<PipelineFigures> {
  const stats = (await (await fetch(`${emulator.url}/_emulator/stats`)).json()) as EmulatorStats;
  const jobs = (await (await fetch(`${emulator.url}/_emulator/jobs`)).json()) as EmulatorJob[];
  const rates = given ?? TIER_RATES[tier];
  const done = jobs.filter((j) => j.status === 'done' && j.finished_at !== null);
  const durations = (task: string): number[] => done.filter((j) => j.task === task).map((j) => Date.parse(j.finished_at!) - Date.parse(j.created_at));
  const d1 = durations('audio.transcribe');
  const d2 = durations('audio.speech');
  const durationOf = new Map(done.map((j) => [j.request_id, Date.parse(j.finished_at!) - Date.parse(j.created_at)]));
  const chains = ((report.chains ?? []) as [string, string][]).map(([t, s]) => (durationOf.get(t) ?? Number.NaN) + (durationOf.get(s) ?? Number.NaN)).filter((d) => Number.isFinite(d));
  // Items the day's quota lets through (Basic); all of them on Premium.
  const items = rates.transcribePerDay === null ? n : Math.min(n, rates.transcribePerDay);
  const lowerBoundMs = lowerBound(items, d1, d2, rates, chains);
  const makespanMs = Number(report.makespan_ms);
  const jobsDone = Number(report.done);
  const apiRequests = stats.requests - stats.downloads;
  return {
    makespan_s: round(makespanMs / 1000, 1),
    lower_bound_s: round(lowerBoundMs / 1000, 1),
    vs_bound: round(makespanMs / lowerBoundMs, 3),
    http_429: stats.by_status['429'] ?? 0,
    requests_per_job: round(apiRequests / Math.max(1, jobsDone), 3),
    status_per_job: round(stats.polls / Math.max(1, jobsDone), 3),
    jobs_done: jobsDone,
    jobs_possible: 2 * items,
    peak_rss_mb: report.peak_rss_mb,
    cpu_ms: round(report.cpu_ms, 0),
    ...noticeDelays(done, (report.notices ?? []) as [string, number][]),
  };
}

/** Delay from each job's end to the client seeing it done (its `notices`: request id, clock ms). */
function noticeDelays(done: readonly EmulatorJob[], notices: readonly [string, number][]): { notice_p50_s?: number; notice_p90_s?: number } {
  const ended = new Map(done.map((j) => [j.request_id, Date.parse(j.finished_at!)]));
  const late = notices.map(([id, ts]) => ts - (ended.get(id) ?? Number.NaN)).filter((d) => Number.isFinite(d)).sort((a, b) => a - b);
  if (late.length === 0) return {};
  const at = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))]!;
  return { notice_p50_s: round(at(0.5) / 1000, 2), notice_p90_s: round(at(0.9) / 1000, 2) };
}

/** The scaled cells, each client `--repeat` times (3) against a fresh emulator; medians reported. */
async function runScaled(args: string[]): Promise<Record<string, unknown>> {
  const timeScale = readNumberArg(args, 'time-scale', 20);
  const repeat = readNumberArg(args, 'repeat', 3);
  const sizes = list(args, 'n', '60,200').map(Number);
  const statuses = list(args, 'status', '60,none').map((s) => (s === 'none' ? null : Number(s)));
  const clients = list(args, 'clients', 'deflow,fair32').filter((c): c is ClientName => c === 'deflow' || c === 'fair8' || c === 'fair32');
  const rows: (string | number)[][] = [];
  const cells: Record<string, unknown>[] = [];
  for (const n of sizes) {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-pipeline-'));
    try {
      await prepareWorkspace(dir, n, true);
      for (const statusRpm of statuses) {
        const cell: Record<string, unknown> = { n, status_rpm: statusRpm, time_scale: timeScale, runs: repeat };
        for (const client of clients) {
          const runs: PipelineFigures[] = [];
          for (let r = 0; r < repeat; r++) runs.push(await runOnce(client, 'premium', n, timeScale, dir, { statusRpm }));
          const f = medianFigures(runs);
          cell[client] = { ...f, each_vs_bound: runs.map((x) => x.vs_bound) };
          const status = statusRpm === null ? 'none' : `${statusRpm}/min`;
          rows.push([n, status, client, f.makespan_s, f.lower_bound_s, f.vs_bound, f.http_429, f.status_per_job, f.notice_p50_s ?? '', f.notice_p90_s ?? '']);
          process.stdout.write(`  scaled n=${n} status ${status} ${client}: ${f.vs_bound} × bound, ${f.http_429} 429s, ${f.status_per_job} status/job, noticed ${f.notice_p50_s} s / ${f.notice_p90_s} s\n`);
        }
        cells.push(cell);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`pipeline --scaled: clips of 20-120 s, transcribe ${SCALED_D1_MS / 1000} s per minute of audio → speak ${D2_MS / 1000} s per 500 characters (± 30 %), ${SCALED_RPM} a minute per submission pool; medians of ${repeat}\n`);
  printTable(['n', 'status pool', 'client', 'makespan s', 'bound s', 'x bound', '429s', 'status/job', 'notice p50 s', 'notice p90 s'], rows);
  return { scaled: true, d1_s_per_minute: SCALED_D1_MS / 1000, d2_s_per_500_chars: D2_MS / 1000, jitter: 0.3, submission_rpm: SCALED_RPM, cells };
}

/** Each figure's median over runs. */
function medianFigures(runs: readonly PipelineFigures[]): PipelineFigures {
  const median = (pick: (f: PipelineFigures) => number | undefined): number => {
    const values = runs.map(pick).filter((v): v is number => v !== undefined).sort((a, b) => a - b);
    return values.length === 0 ? Number.NaN : values[Math.floor(values.length / 2)]!;
  };
  const keys = Object.keys(runs[0]!) as (keyof PipelineFigures)[];
  return Object.fromEntries(keys.map((k) => [k, median((f) => f[k])])) as unknown as PipelineFigures;
}

/** Virtual ms; see the header comment. */
export function lowerBound(items: number, d1: readonly number[], d2: readonly number[], rates: { transcribe: number; speak: number; status: number }, chains: readonly number[] = []): number {
  if (d1.length === 0 || d2.length === 0) return Number.NaN;
  const w = WINDOW_S * 1000;
  const [min1, max1, min2, max2] = [Math.min(...d1), Math.max(...d1), Math.min(...d2), Math.max(...d2)];
  return Math.max(
    // Some item's chain: the longest one when the client said which jobs form each item.
    chains.length > 0 ? Math.max(...chains) : 0,
    max1 + min2,
    min1 + max2,
    (Math.ceil(items / rates.transcribe) - 1) * w + min1 + min2,
    min1 + (Math.ceil(items / rates.speak) - 1) * w + min2,
    (Math.ceil((2 * items) / rates.status) - 1) * w,
  );
}

async function prepareWorkspace(dir: string, n: number, varied = false): Promise<void> {
  await mkdir(join(dir, 'clips'), { recursive: true });
  const source = join(dir, 'clip.mp3');
  await writeFile(source, makeMp3(3));
  for (let i = 0; i < n; i++) {
    const target = join(dir, 'clips', `c${String(i).padStart(5, '0')}.mp3`);
    if (!varied) {
      await link(source, target);
      continue;
    }
    // 20-120 s in a fixed shuffled order (37 and 101 are coprime): every length once per 101 clips.
    const seconds = 20 + ((i * 37) % 101);
    const made = join(dir, `clip-${seconds}.mp3`);
    await writeFile(made, makeMp3(seconds), { flag: 'w' });
    await link(made, target);
  }
  const workflow = transcribeThenSpeakWorkflow('bench-pipeline');
  await writeFile(join(dir, 'pipeline.yaml'), workflow);
}

// ---- child process ----

async function child(payload: ChildPayload): Promise<Record<string, unknown>> {
  const clock = anchoredClock(payload.anchor);
  const figures = payload.client === 'deflow' ? await runDeflow(payload, clock) : await runFair(payload, clock, payload.client === 'fair8' ? 8 : 32);
  return { ...figures, ...ownUsage() };
}

async function runDeflow(payload: ChildPayload, clock: Clock): Promise<{ makespan_ms: number; done: number; chains: [string, string][]; notices: [string, number][] }> {
  const validation = await validateWorkflow(join(payload.dir, 'pipeline.yaml'), { offline: true });
  if (!validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
  const client = new DeapiClient({ apiKey: payload.apiKey, baseUrl: payload.url, clock, governor: new GatedGovernor({ clock }) });
  let started = 0;
  let finished = 0;
  let lastDone = 0;
  const jobOf = new Map<string, string>();
  const notices: [string, number][] = [];
  const onEvent = (event: RunEvent): void => {
    if (event.type === 'item-downloading') notices.push([event.requestId, event.ts]);
    if (event.type === 'run-started') started = event.ts;
    if (event.type === 'item-submitted') jobOf.set(`${event.node.step}:${event.node.index}`, event.requestId);
    if (event.type === 'item-done') lastDone = event.ts;
    if (event.type === 'run-finished') finished = event.ts;
  };
  const hints = payload.webhooks ? await startWebhookHints({ url: 'http://127.0.0.1:0/', listen: '127.0.0.1:0', secret: randomBytes(32).toString('base64url'), clock }) : undefined;
  // The receiver picked its port: deliveries go there.
  const webhooks = hints === undefined ? null : { fields: { ...hints.fields, webhook_url: hints.receiver.url }, wakeups: hints.wakeups };
  const outcome = await runWorkflow({ graph: validation.graph, client, clock, stateDir: join(payload.dir, `.deflow-${process.pid}`), onEvent, webhooks });
  await client.close();
  await hints?.close();
  // A run stopped by the day's limit ends when its last job was seen done.
  const end = outcome.status === 'done' ? finished : lastDone;
  const chains: [string, string][] = [];
  for (const [node, transcription] of jobOf) {
    const speech = node.startsWith('transcribe:') ? jobOf.get(`speak:${node.slice('transcribe:'.length)}`) : undefined;
    if (speech !== undefined) chains.push([transcription, speech]);
  }
  return { makespan_ms: end - started, done: outcome.counts.done, chains, notices };
}

/** The fair hand-written client: each clip's two jobs in turn, every job through one p-limit. */
async function runFair(payload: ChildPayload, clock: Clock, concurrency: number): Promise<{ makespan_ms: number; done: number; chains: [string, string][]; notices: [string, number][] }> {
  const fair = createFairClient({ baseUrl: payload.url, apiKey: payload.apiKey, clock, concurrency, ...(payload.deadline !== null ? { deadline: payload.deadline } : {}) });
  const files = (await readdir(join(payload.dir, 'clips'))).sort();
  const t0 = clock.now();
  let done = 0;
  let lastDone = t0;
  const chains: [string, string][] = [];
  const notices: [string, number][] = [];
  const count = (status: Record<string, unknown>): boolean => {
    if (status.status !== 'done') return false;
    notices.push([String(status.request_id), clock.now()]);
    done++;
    lastDone = clock.now();
    return true;
  };
  await Promise.all(
    files.map(async (name) => {
      try {
        const transcript = await fair.limit(() =>
          fair.job('/api/v2/audio/transcriptions', {
            source_file: { path: join(payload.dir, 'clips', name), name },
            model: 'WhisperLargeV3',
            include_ts: 'false',
            return_result_in_response: 'true',
          }),
        );
        if (!count(transcript)) return;
        const speech = await fair.limit(() =>
          fair.job('/api/v2/audio/speech', { text: String(transcript.result ?? ''), model: 'Kokoro', voice: 'af_sky', lang: 'en-us', speed: '1', format: 'mp3', sample_rate: '24000' }),
        );
        if (count(speech)) chains.push([String(transcript.request_id), String(speech.request_id)]);
      } catch (error) {
        if (!(error instanceof DeadlinePassed)) throw error;
      }
    }),
  );
  return { makespan_ms: lastDone - t0, done, chains, notices };
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await child(JSON.parse(process.argv[3] ?? '{}') as ChildPayload);
  process.stdout.write(`${JSON.stringify(result satisfies Partial<ChildReport>)}\n`);
  process.exit(0);
}

/**
 * The bound of the earlier fixed-rate workload (60 rpm per submission endpoint, jobs of exactly
 * 30 s and 10 s, one status request per job at `statusRpm` when polls count), in virtual
 * seconds: bench/scaleout.ts still measures that workload.
 */
export function lowerBoundS(n: number, statusRpm: number | null): number {
  const rpm = 60;
  const windows = Math.ceil(n / rpm) - 1;
  const d1 = D1_MS / 1000;
  const d2 = D2_MS / 1000;
  const bounds = [d1 + d2, windows * WINDOW_S + d1 + d2, d1 + windows * WINDOW_S + d2];
  if (statusRpm !== null) bounds.push((Math.ceil((2 * n) / statusRpm) - 1) * WINDOW_S);
  return Math.max(...bounds);
}
