/**
 * What a run already has before it sends anything: items whose result the result cache holds
 * (the job `run` would look up is a hit) and items an earlier session of the run finished or
 * paid for (the journal). The quote prices them at $0 and shows them apart ("already have"),
 * and the budget gate compares the cap with what is left to pay (issue 27, point 1).
 *
 * The probe renders each node the way the job runner will (its `if`, its request, the cache
 * key over its upstream chain) against the results it found so far, and asks the cache
 * without counting a hit. A node whose upstream is not held cannot be known to be a hit
 * before the run: it is priced.
 */
import { join } from 'node:path';
import type { Clock } from '../../../common/index.js';
import type { JobGraph } from '../../../workflow/index.js';
import { evaluateCondition } from '../../../workflow/index.js';
import { CacheAdapter, createBlobStore, createResultCache } from '../../cache/index.js';
import type { BlobStore, CacheLookup } from '../../cache/index.js';
import type { NodeResult } from '../../contracts/node-result.js';
import { toStepResult } from '../../contracts/node-result.js';
import type { HeldItem } from '../../quote/index.js';
import { resolveRequest } from '../field-resolver.js';
import { createScopeBuilder } from '../node-scope.js';
import type { SeedNode } from '../../contracts/seed-node.js';

export interface FindHeldOptions {
  readonly graph: JobGraph;
  /** The cache the run asks (its `peek` answers without counting); none: nothing is held from the cache. */
  readonly cache: CacheLookup | null;
  readonly blobs: BlobStore;
  /** The run's `run` scope (`run.id`, `run.started_at` may be part of a request). */
  readonly run: { readonly id: string; readonly started_at: string };
  /** Node states from an earlier session of this run (resume). */
  readonly seeds?: readonly SeedNode[];
  /** Nodes left out at validation (`--keep-going`): never held, never priced. */
  readonly excluded?: ReadonlySet<number>;
  readonly signal?: AbortSignal | undefined;
}

/** Held items by graph index. */
export async function findHeldItems(options: FindHeldOptions): Promise<Map<number, HeldItem>> {
  const { graph, cache } = options;
  const held = new Map<number, HeldItem>();
  const results = new Map<number, NodeResult>();
  for (const seed of options.seeds ?? []) {
    let id: number;
    try {
      id = graph.nodeIndex(seed.step, seed.k);
    } catch {
      continue;
    }
    if (seed.state === 'done') {
      held.set(id, { source: 'journal', cost: seed.result.cost });
      results.set(id, seed.result);
    } else if (seed.state === 'submitted' && seed.paid !== undefined) {
      held.set(id, { source: 'journal', cost: seed.paid.cost });
    }
  }
  if (cache?.peek === undefined) return held;
  const scope = createScopeBuilder(graph, options.run);
  const lookup = (stepId: string, j: number) => {
    const result = results.get(graph.nodeIndex(stepId, j));
    return result === undefined ? undefined : toStepResult(result);
  };
  for (const step of graph.steps) {
    if (!step.def.cache) continue;
    for (let k = 0; k < step.itemCount; k++) {
      options.signal?.throwIfAborted();
      const id = step.offset + k;
      if (held.has(id) || options.excluded?.has(id)) continue;
      const upstreamIds: number[] = [];
      for (const node of graph.dependencies(step.id, k)) upstreamIds.push(node.step.offset + node.k);
      // An upstream item that is neither held nor known runs first: this one cannot be known to be a hit.
      if (upstreamIds.some((u) => !results.has(u))) continue;
      try {
        const nodeScope = scope(step.id, k, lookup);
        if (!evaluateCondition(step.def.if, nodeScope)) continue;
        const upstream = upstreamIds.map((u) => results.get(u)!);
        const { fields } = resolveRequest(graph, step, k, nodeScope, upstream, options.blobs);
        const node = (n: number) => {
          const at = graph.nodeAt(n);
          return { id: n, step: at.step.id, index: at.k, key: String(at.k) };
        };
        const hit = await cache.peek({ node: node(id), task: step.task.id, fields, upstream: upstreamIds.map(node) });
        if (hit === null) continue;
        held.set(id, { source: 'cache', cost: hit.cost });
        results.set(id, hit.result);
      } catch {
        // A request that does not render now fails at run time, where it is reported.
        continue;
      }
    }
  }
  return held;
}

/** The result cache of a state folder as a run would ask it (for `deflow quote`). */
export function openResultCacheLookup(options: { readonly graph: JobGraph; readonly stateDir: string; readonly clock: Clock }): { cache: CacheLookup; blobs: BlobStore } {
  const blobs = createBlobStore(join(options.stateDir, 'blobs'));
  const cache = new CacheAdapter({ graph: options.graph, cache: createResultCache({ dir: join(options.stateDir, 'cache'), blobs }), blobs, clock: options.clock });
  return { cache, blobs };
}

/** Nodes left out at validation and every node downstream of one (the run skips them), by graph index. */
export function leftOutWithDependents(graph: JobGraph, ids: Iterable<number>): Set<number> {
  const out = new Set(ids);
  if (out.size === 0) return out;
  for (const step of graph.steps) {
    if (step.upstream.length === 0) continue;
    for (let k = 0; k < step.itemCount; k++) {
      const id = step.offset + k;
      if (out.has(id)) continue;
      for (const node of graph.dependencies(step.id, k)) {
        if (out.has(node.step.offset + node.k)) {
          out.add(id);
          break;
        }
      }
    }
  }
  return out;
}
