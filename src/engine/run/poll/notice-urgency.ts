/**
 * When noticing a finished job at once is worth status requests on a limited job-status pool.
 *
 * A rate-limited pool's windows open on their first request and run back to back while work
 * waits (docs/deapi-contract.md#rate-limits). When a downstream step's pool needs several windows
 * for its items, the moment its first request goes out sets when each later window opens, the
 * last one included: a transcript seen 20 s after it was ready delays the last window of
 * speech by 20 s, and the run's end with it. The same holds whenever that pool sits with room
 * and nothing queued. Then the upstream step's jobs are polled as with an unlimited status
 * pool (early enough to read their progress, then just past the end it points to), while the
 * status pool has room and nothing queued; otherwise a job is polled once, when it is probably
 * done.
 */
import type { GovernorBucketView } from '../../../client/index.js';
import { JOBS_STATUS_POOL } from '../../../service/index.js';
import type { GraphStep, JobGraph } from '../../../workflow/index.js';

/** The buckets of `pool` (its own and its per-model ones). */
function bucketsOf(views: readonly GovernorBucketView[], pool: string): GovernorBucketView[] {
  return views.filter((v) => v.bucket === pool || v.bucket.startsWith(`${pool}#model:`));
}

/** Whether `pool` needs more than one window for `items` requests: it is known to be limited below that. */
function windowPaced(views: readonly GovernorBucketView[], pool: string, items: number): boolean {
  return bucketsOf(views, pool).some((v) => v.state === 'known' && v.limit > 0 && items > v.limit);
}

/**
 * Whether a finished job of `step` should be noticed at once: some step reading it submits to
 * a pool that needs several windows for its items (or, not used yet, while `step`'s own pool
 * does) and that would admit a request now with none queued.
 */
export function noticeMatters(graph: JobGraph, step: GraphStep, views: readonly GovernorBucketView[]): boolean {
  for (const edge of step.downstream) {
    const next = graph.steps.find((s) => s.id === edge.to);
    if (next === undefined) continue;
    const pool = next.task.pool;
    const buckets = bucketsOf(views, pool);
    const known = buckets.filter((v) => v.state === 'known');
    if (known.length === 0) {
      // Not used yet (or still learning its limits): its first window opens with the first job
      // seen done. That matters when the run is paced by windows already.
      if (buckets.some((v) => v.state === 'unthrottled')) continue;
      if (windowPaced(views, step.task.pool, step.itemCount)) return true;
      continue;
    }
    if (!windowPaced(views, pool, next.itemCount)) continue;
    if (known.some((v) => (v.waiting ?? 0) === 0 && (v.room ?? 0) > 0)) return true;
  }
  return false;
}

/** Whether the limited job-status pool would take a request now with none queued. */
export function statusHasRoom(views: readonly GovernorBucketView[]): boolean {
  return views.some((v) => v.bucket === JOBS_STATUS_POOL && v.state === 'known' && (v.waiting ?? 0) === 0 && (v.room ?? 0) > 0);
}
