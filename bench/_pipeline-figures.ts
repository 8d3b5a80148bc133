/**
 * A pipeline run's figures, from the emulator's counts (`GET /_emulator/stats`), its job list
 * (`GET /_emulator/jobs`: every job's real duration) and what the client reported: makespan
 * against the lower bound (bench/pipeline.ts's header: which terms), 429s, requests per job,
 * how late finished jobs were noticed, and where the time went (bench/_pipeline-analysis.ts).
 */
import { median, round } from './_bench-util.js';
import type { ChildReport } from './_child-process.js';
import { type EmulatorJob, handOff, type PoolWindows, poolWindows, quantile, WINDOW_MS } from './_pipeline-analysis.js';

/** Per-minute rates of the workload's pools, and the transcription pool's daily quota (Basic), or null. */
export interface PoolRates {
  readonly transcribe: number;
  readonly speak: number;
  readonly status: number;
  readonly transcribePerDay: number | null;
}

/** The terms of the lower bound, s (the bound is the largest). */
export interface BoundTerms {
  /** The longest item's chain (transcription + speech), or the longest transcription + shortest speech. */
  readonly chain_s: number;
  /** The transcription pool's last window, then the shortest chain. */
  readonly transcribe_windows_s: number;
  /** The shortest transcription, the speech pool's last window, then the shortest speech. */
  readonly speak_windows_s: number;
  /** One status request per job. */
  readonly status_s: number;
}

/**
 * Terms of a tighter bound, s, from the same durations: the last window of a pool holds k items
 * (N less the full windows before it), and the largest of k chains (or k speeches) is at least
 * the k-th smallest, where the terms above count the smallest alone.
 */
export interface TightTerms {
  /** The transcription pool's last window, then the k-th shortest chain. */
  readonly transcribe_last_window_s: number;
  /** The shortest transcription, the speech pool's last window, then the k-th shortest speech. */
  readonly speak_last_window_s: number;
}

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
  /** Median and 90th percentile of the delay from a transcription's end to its speech's acceptance, s. */
  readonly hand_off_p50_s?: number;
  readonly hand_off_p90_s?: number;
  /** The bound's terms. */
  readonly bound_terms?: BoundTerms;
  /** The tighter bound: the largest of the bound's terms and {@link TightTerms}, s, and the makespan over it. */
  readonly tight_bound_s?: number;
  readonly vs_tight_bound?: number;
  readonly tight_terms?: TightTerms;
  /** Each submission pool's windows. */
  readonly transcribe_pool?: PoolWindows;
  readonly speak_pool?: PoolWindows;
}

interface EmulatorStats {
  readonly requests: number;
  readonly by_status: Record<string, number>;
  readonly polls: number;
  readonly downloads: number;
}

/** The figures of the run the emulator at `url` just served; `n` items, the client's `report`. */
export async function figures(url: string, n: number, report: ChildReport, rates: PoolRates): Promise<PipelineFigures> {
  const stats = (await (await fetch(`${url}/_emulator/stats`)).json()) as EmulatorStats;
  const jobs = (await (await fetch(`${url}/_emulator/jobs`)).json()) as EmulatorJob[];
  const done = jobs.filter((j) => j.status === 'done' && j.finished_at !== null);
  const durations = (task: string): number[] => done.filter((j) => j.task === task).map((j) => Date.parse(j.finished_at!) - Date.parse(j.created_at));
  const d1 = durations('audio.transcribe');
  const d2 = durations('audio.speech');
  const durationOf = new Map(done.map((j) => [j.request_id, Date.parse(j.finished_at!) - Date.parse(j.created_at)]));
  const pairs = (report.chains ?? []) as [string, string][];
  const chains = pairs.map(([t, s]) => (durationOf.get(t) ?? Number.NaN) + (durationOf.get(s) ?? Number.NaN)).filter((d) => Number.isFinite(d));
  // Items the day's quota lets through (Basic); all of them on Premium.
  const items = rates.transcribePerDay === null ? n : Math.min(n, rates.transcribePerDay);
  const terms = boundTerms(items, d1, d2, rates, chains);
  const lowerBoundMs = terms === undefined ? Number.NaN : Math.max(...Object.values(terms));
  const tight = chains.length === items && d2.length === items ? tightTerms(items, d1, d2, rates, chains) : undefined;
  const tightMs = tight === undefined ? Number.NaN : Math.max(lowerBoundMs, ...Object.values(tight));
  const makespanMs = Number(report.makespan_ms);
  const jobsDone = Number(report.done);
  const apiRequests = stats.requests - stats.downloads;
  const t0 = Math.min(...jobs.map((j) => Date.parse(j.created_at)));
  const transcribePool = poolWindows(jobs, 'audio.transcribe', rates.transcribe, t0);
  const speakPool = poolWindows(jobs, 'audio.speech', rates.speak, t0);
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
    ...handOff(jobs, pairs),
    ...(terms === undefined ? {} : { bound_terms: seconds(terms) }),
    ...(tight === undefined ? {} : { tight_bound_s: round(tightMs / 1000, 1), vs_tight_bound: round(makespanMs / tightMs, 3), tight_terms: seconds(tight) }),
    ...(transcribePool === undefined ? {} : { transcribe_pool: transcribePool }),
    ...(speakPool === undefined ? {} : { speak_pool: speakPool }),
  };
}

/** Delay from each job's end to the client seeing it done (its `notices`: request id, clock ms). */
function noticeDelays(done: readonly EmulatorJob[], notices: readonly [string, number][]): { notice_p50_s?: number; notice_p90_s?: number } {
  const ended = new Map(done.map((j) => [j.request_id, Date.parse(j.finished_at!)]));
  const late = notices.map(([id, ts]) => ts - (ended.get(id) ?? Number.NaN)).filter((d) => Number.isFinite(d));
  if (late.length === 0) return {};
  return { notice_p50_s: round(quantile(late, 0.5) / 1000, 2), notice_p90_s: round(quantile(late, 0.9) / 1000, 2) };
}

/** Virtual ms; see bench/pipeline.ts's header comment. */
export function lowerBound(items: number, d1: readonly number[], d2: readonly number[], rates: Omit<PoolRates, 'transcribePerDay'>, chains: readonly number[] = []): number {
  const terms = boundTerms(items, d1, d2, rates, chains);
  return terms === undefined ? Number.NaN : Math.max(...Object.values(terms));
}

/** The bound's terms, virtual ms. */
function boundTerms(items: number, d1: readonly number[], d2: readonly number[], rates: Omit<PoolRates, 'transcribePerDay'>, chains: readonly number[]): BoundTerms | undefined {
  if (d1.length === 0 || d2.length === 0) return undefined;
  const w = WINDOW_MS;
  const [min1, max1, min2, max2] = [Math.min(...d1), Math.max(...d1), Math.min(...d2), Math.max(...d2)];
  return {
    // Some item's chain: the longest one when the client said which jobs form each item.
    chain_s: Math.max(chains.length > 0 ? Math.max(...chains) : 0, max1 + min2, min1 + max2),
    transcribe_windows_s: (Math.ceil(items / rates.transcribe) - 1) * w + min1 + min2,
    speak_windows_s: min1 + (Math.ceil(items / rates.speak) - 1) * w + min2,
    status_s: Math.max(0, (Math.ceil((2 * items) / rates.status) - 1) * w),
  };
}

/** The tighter terms, virtual ms; `chains`: every item's transcription + speech. */
function tightTerms(items: number, d1: readonly number[], d2: readonly number[], rates: Omit<PoolRates, 'transcribePerDay'>, chains: readonly number[]): TightTerms {
  const w = WINDOW_MS;
  const full1 = Math.ceil(items / rates.transcribe) - 1;
  const full2 = Math.ceil(items / rates.speak) - 1;
  const kth = (values: readonly number[], k: number): number => [...values].sort((a, b) => a - b)[k - 1]!;
  return {
    transcribe_last_window_s: full1 * w + kth(chains, items - full1 * rates.transcribe),
    speak_last_window_s: Math.min(...d1) + full2 * w + kth(d2, items - full2 * rates.speak),
  };
}

function seconds<T extends object>(terms: T): T {
  return Object.fromEntries(Object.entries(terms).map(([k, v]) => [k, round(Number(v) / 1000, 1)])) as T;
}

/** Each figure's median over runs (nested figures: the median run's, by × bound). */
export function medianFigures(runs: readonly PipelineFigures[]): PipelineFigures {
  const byBound = [...runs].sort((a, b) => a.vs_bound - b.vs_bound);
  const middle = byBound[Math.floor((byBound.length - 1) / 2)]!;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(runs[0]!)) {
    if (typeof value !== 'number') {
      out[key] = (middle as unknown as Record<string, unknown>)[key];
      continue;
    }
    out[key] = median(runs.map((f) => (f as unknown as Record<string, number | undefined>)[key]).filter((v): v is number => v !== undefined));
  }
  return out as unknown as PipelineFigures;
}
