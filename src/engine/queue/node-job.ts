/**
 * What a node's BullMQ job carries. The coordinator puts in the node's identity and the
 * results of the nodes it reads (results flow between steps through the queue: a media
 * result travels as its `result_url`, and a worker without it on disk fetches it again).
 * The worker adds the intent before the POST and the `request_id` on arrival, and returns
 * how the node ended.
 */
import type { EventError } from '../contracts/events.js';
import type { NodeResult } from '../run/index.js';

export interface NodeJobData {
  readonly v: 1;
  readonly run: string;
  readonly step: string;
  readonly k: number;
  /** Results of the nodes it reads: [global node index, result]. */
  readonly upstream: readonly (readonly [number, NodeResult])[];
  /**
   * Cache keys of the nodes it reads that have one: [global node index, key]. A node's key
   * covers its upstream nodes' keys, and another worker (or session) may have run them: without
   * these, the key would depend on which worker ran what, and a later run would miss the cache.
   */
  readonly upstreamKeys?: readonly (readonly [number, string])[];
  /** Written by the worker just before the submission POST. */
  readonly intent?: { readonly attempt: number; readonly digest: string; readonly cacheKey: string | null };
  /** Written by the worker as soon as the service accepted the job. */
  readonly requestId?: string;
  readonly attempt?: number;
  /** The job's cache key, once known (so that a worker resuming it stores its result). */
  readonly cacheKey?: string | null;
  /**
   * Set by a coordinator that enqueues again a job an earlier session left paid, not saved:
   * the job at `requestId` is done and was paid for (USD `cost`); a worker fetches its result
   * again, never submits it.
   */
  readonly paid?: { readonly cost: number | null };
  /**
   * The W3C `traceparent` of the coordinator's span of this job, when the coordinator traces:
   * a worker that traces makes its span of the job a child of it (one trace for the run).
   */
  readonly traceparent?: string;
}

/** How a node ended, as the worker returns it. */
export type NodeJobResult =
  | {
      readonly outcome: 'done';
      readonly result: NodeResult;
      readonly outputs: readonly string[];
      readonly cached: boolean;
      readonly cacheKey: string | null;
    }
  | { readonly outcome: 'failed'; readonly error: EventError; readonly retryable: boolean }
  /** Paid, not saved: the job at `requestId` is done and paid for, its result could not be fetched or written. */
  | { readonly outcome: 'unsaved'; readonly error: EventError; readonly requestId: string; readonly cost: number | null }
  | { readonly outcome: 'skipped'; readonly reason: string }
  | { readonly outcome: 'unknown'; readonly reason: string }
  /** The job at `requestId` ran past its step's timeout; it still runs at the service (a later session polls it, never submits it again). */
  | { readonly outcome: 'timed-out'; readonly error: EventError; readonly requestId: string }
  /** Refused before anything was created (auth, permission, balance): the run stops, the node waits. */
  | { readonly outcome: 'refused'; readonly error: EventError };

/** Progress a worker publishes (`job.updateProgress`) for the coordinator's report. */
export type NodeJobProgress =
  | { readonly t: 'submitted'; readonly attempt: number; readonly requestId: string }
  | { readonly t: 'retry'; readonly attempt: number; readonly error: EventError };
