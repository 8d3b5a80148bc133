/**
 * `npm run bench -- pipeline [--n 60,200,1000] [--tiers premium,basic] [--basic-n 10,60]
 *   [--time-scale S] [--clients deflow,fair8,fair32] [--fair8-max 200]`
 * `npm run bench -- pipeline --scaled [--clock event|scaled] [--n 60,200] [--status 60,none] [--clients deflow,deflow-night2,fair32] [--repeat 3]`:
 *   jobs whose duration grows with their input, on a discrete-event clock by default
 *   (bench/_pipeline-scaled.ts).
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
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../src/emulator/start-emulator.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { printTable, readNumberArg } from './_bench-util.js';
import { anchoredClock, anchorNow, type ClockAnchor, type ChildReport, ownUsage, runChild } from './_child-process.js';
import { prepareWorkspace, runDeflow, runFair } from './_pipeline-clients.js';
import { figures, type PipelineFigures, type PoolRates } from './_pipeline-figures.js';
import { type ClientName, runScaled, type ScaledCell, scaledEmulatorConfig, scaledRates } from './_pipeline-scaled.js';

export { lowerBound, type PipelineFigures } from './_pipeline-figures.js';

const D1_MS = 30_000;
const D2_MS = 10_000;
const WINDOW_S = 60;
const DAY_MS = 86_400_000;

type Tier = 'premium' | 'basic';

/** Per-minute and per-day rates of the pools this workload uses (rate-tiers.ts, from the docs). */
const TIER_RATES: Record<Tier, PoolRates> = {
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
  if (args.includes('--scaled')) return runScaled(args, (client, n, dir, cell, timeScale) => runOnce(client, 'premium', n, timeScale, dir, cell));
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
  const emulator = await startEmulator({
    clock: anchoredClock(anchor),
    config:
      scaled === undefined
        ? {
            time_scale: timeScale,
            tier,
            balance: 1_000_000,
            // deflow's receiver listens on loopback over http (Basic).
            webhooks: { allow_http: true },
            jobs: { durations: { 'audio/transcriptions': D1_MS, 'audio/speech': D2_MS }, jitter: 0.3, scale_by_input: false },
          }
        : { ...scaledEmulatorConfig(scaled), time_scale: timeScale },
  });
  try {
    const deadline = tier === 'basic' ? emulator.clock.now() + DAY_MS : null;
    const payload: ChildPayload = { client, url: emulator.url, apiKey: emulator.keys.api, anchor, dir, deadline, webhooks: tier === 'basic' };
    const report = await runChild(fileURLToPath(import.meta.url), payload, client === 'deflow' ? {} : { execArgv: ['--no-warnings'] });
    return await figures(emulator.url, n, report, scaled === undefined ? TIER_RATES[tier] : scaledRates(scaled));
  } finally {
    await emulator.close();
  }
}

// ---- child process ----

async function child(payload: ChildPayload): Promise<Record<string, unknown>> {
  const run = { ...payload, clock: anchoredClock(payload.anchor) };
  const figures = payload.client === 'deflow' ? await runDeflow(run) : await runFair(run, payload.client === 'fair8' ? 8 : 32);
  return { ...figures, ...ownUsage() };
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
