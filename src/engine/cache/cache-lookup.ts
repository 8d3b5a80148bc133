/**
 * The result-cache seam: asked before every submission, told after every job. The result
 * cache (result-cache.ts) implements it (docs/running.md#the-result-cache); the default finds nothing.
 */
import type { RequestFields } from '../../client/index.js';
import type { NodeResult } from '../contracts/node-result.js';
import type { RecordedNode } from '../contracts/state-recorder.js';

/** A job about to be submitted, with everything its cache key depends on. */
export interface CacheQuery {
  readonly node: RecordedNode;
  readonly task: string;
  /** The resolved request fields; file fields are `{ path }` (local files, or blobs of upstream results). */
  readonly fields: RequestFields;
  /** The upstream nodes whose results this job read, in graph order. */
  readonly upstream: readonly RecordedNode[];
}

export interface CacheAnswer {
  /** The job's cache key (journalled with the intent), or null when the job is not cacheable. */
  readonly key: string | null;
  /** A stored result for the key: the job is not submitted. Media results point into the blob store. */
  readonly hit: NodeResult | null;
}

export interface CacheLookup {
  /**
   * The job's key and a stored result for it. `keyOnly`: the key alone, no hit looked for (a
   * job already paid for, whose result is fetched and then stored under that key).
   */
  lookup(query: CacheQuery, options?: { readonly keyOnly?: boolean }): Promise<CacheAnswer>;
  /**
   * What {@link CacheLookup.lookup} would find, without counting it as served: the result and
   * what it cost once. Asked before the run to price cache hits at $0 (held-items.ts).
   */
  peek?(query: CacheQuery): Promise<{ readonly result: NodeResult; readonly cost: number | null } | null>;
  /** The job finished with `result` (called before the node is marked done). */
  store(key: string, query: CacheQuery, result: NodeResult): Promise<void>;
  /**
   * The key of node `id` (a graph index), learned elsewhere: a queue worker is told the keys
   * of the upstream nodes other workers ran, so that its jobs' keys are the ones any worker
   * (or a local run) would compute.
   */
  know?(id: number, key: string): void;
}

/** Caches nothing. */
export const NO_CACHE: CacheLookup = {
  lookup: async () => ({ key: null, hit: null }),
  store: async () => {},
};
