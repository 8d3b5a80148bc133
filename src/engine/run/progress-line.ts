/**
 * What a job's progress readings say about its end. Progress rises linearly from 0 to 100 %
 * once the job leaves its queue: two readings give the line (start and end), one reading gives
 * the end once the share of a job's life spent queued is known.
 */

/** One running reading of a job: time since acceptance (ms) and progress (percent). */
export interface ProgressReading {
  readonly elapsedMs: number;
  readonly progress: number;
}

/**
 * Total duration implied by `progress` percent after `elapsedMs`, when progress is meaningful:
 * progress rises linearly after a queued share `queued` of the job's life, so
 * `elapsed = queued·end + (1 − queued)·end·progress/100`.
 */
export function extrapolate(elapsedMs: number, progress: number | null, queued = 0): number | undefined {
  if (progress === null || !(progress > 0) || progress >= 100) return undefined;
  return (elapsedMs * 100) / (progress * (1 - queued) + 100 * queued);
}

/** Start (progress 0) and end (100) of a job, in ms since acceptance, from two readings of its linear progress. */
export function progressLine(a: ProgressReading, b: ProgressReading): { start: number; end: number } | undefined {
  const [first, second] = a.elapsedMs <= b.elapsedMs ? [a, b] : [b, a];
  const dt = second.elapsedMs - first.elapsedMs;
  const dp = second.progress - first.progress;
  if (!(dt > 0) || !(dp > 0) || !(first.progress > 0) || second.progress >= 100) return undefined;
  const rate = dp / dt;
  return { start: Math.max(0, first.elapsedMs - first.progress / rate), end: second.elapsedMs + (100 - second.progress) / rate };
}
