/**
 * Where a pipeline run's time went, from the emulator's job list: how long each submission
 * pool sat with its whole allowance unused between its windows, and how long a transcript
 * waited between being ready and its speech being submitted.
 *
 * A pool's windows are the emulator's (src/emulator/limits/rate-limiter.ts, docs/deapi-contract.md#rate-limits):
 * a window opens on the first request into the pool at the whole second and runs 60 s; the next
 * request after it ends opens the next one. With no 429 (every request admitted) the pool's jobs'
 * acceptance times are its requests.
 */
import { round } from './_bench-util.js';

export const WINDOW_MS = 60_000;

/** A job of `GET /_emulator/jobs`. */
export interface EmulatorJob {
  readonly request_id: string;
  readonly task: string;
  readonly status: string;
  readonly created_at: string;
  readonly finished_at: string | null;
}

/** One submission pool's windows over a run. */
export interface PoolWindows {
  /** Windows the pool opened. */
  readonly windows: number;
  /** Seconds between one window's end and the next one's opening: the pool had its whole allowance and sent nothing. */
  readonly idle_s: number;
  /** Submissions the windows before the last left unsent (the allowance times their count, less what they took). */
  readonly spare_slots: number;
  /** When the pool's first window opened, s after the run's first submission. */
  readonly first_s: number;
}

/** The windows of the jobs of `task` at `rpm` a window; `t0`: the run's first submission (epoch ms). */
export function poolWindows(jobs: readonly EmulatorJob[], task: string, rpm: number, t0: number): PoolWindows | undefined {
  const times = jobs
    .filter((j) => j.task === task)
    .map((j) => Date.parse(j.created_at))
    .sort((a, b) => a - b);
  if (times.length === 0) return undefined;
  const opened: { start: number; count: number }[] = [];
  for (const t of times) {
    const last = opened[opened.length - 1];
    if (last !== undefined && t < last.start + WINDOW_MS) last.count++;
    else opened.push({ start: Math.floor(t / 1000) * 1000, count: 1 });
  }
  let idle = 0;
  let spare = 0;
  for (let i = 1; i < opened.length; i++) {
    idle += opened[i]!.start - (opened[i - 1]!.start + WINDOW_MS);
    spare += Math.max(0, rpm - opened[i - 1]!.count);
  }
  return { windows: opened.length, idle_s: round(idle / 1000, 1), spare_slots: spare, first_s: round((opened[0]!.start - t0) / 1000, 1) };
}

/** Median and 90th percentile (s) of the delay from each item's transcription ending to its speech being accepted. */
export function handOff(jobs: readonly EmulatorJob[], chains: readonly (readonly [string, string])[]): { hand_off_p50_s?: number; hand_off_p90_s?: number } {
  const byId = new Map(jobs.map((j) => [j.request_id, j]));
  const delays = chains
    .map(([t, s]) => {
      const ended = byId.get(t)?.finished_at;
      const created = byId.get(s)?.created_at;
      return ended && created ? Date.parse(created) - Date.parse(ended) : Number.NaN;
    })
    .filter((d) => Number.isFinite(d));
  if (delays.length === 0) return {};
  return { hand_off_p50_s: round(quantile(delays, 0.5) / 1000, 2), hand_off_p90_s: round(quantile(delays, 0.9) / 1000, 2) };
}

/** The order statistic at `q` (0.5: the upper middle of an even count). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
