/**
 * Submission order of a step that waits for nothing: its items whose input is largest (the
 * longest job, and the longest chain after it, since each later step's input grows with it)
 * go first, the longest-processing-time rule, so the last window of a rate-limited pool is not
 * left with a long job whose chain then runs alone. Sizes come from the items' rendered
 * requests (input-measure.ts: seconds of media read from the file's header, characters, pixels,
 * frames); a step whose items cannot all be measured, or all measure alike, keeps file order.
 */
import type { DurationReader } from '../quote/index.js';
import type { GraphStep, JobGraph } from '../../workflow/index.js';
import { resolveRequest } from './field-resolver.js';
import type { ScopeBuilder } from './node-scope.js';
import { measureInput } from './poll/input-measure.js';
import type { BlobStore } from '../cache/index.js';

/** Steps larger than this keep file order (measuring every item up front would delay the first submission). */
const MAX_ITEMS = 5000;

/** Sizes closer than this (ratio of the largest to the smallest) are alike: file order stays. */
const ALIKE = 1.05;

interface OrderContext {
  readonly graph: JobGraph;
  readonly scope: ScopeBuilder;
  readonly blobs: BlobStore;
  readonly durations: DurationReader;
}

/** Node ids of `step` (which waits for nothing), longest input first; undefined to keep file order. */
export async function longestFirst(ctx: OrderContext, step: GraphStep): Promise<number[] | undefined> {
  if (step.upstream.length > 0 || step.itemCount < 2 || step.itemCount > MAX_ITEMS) return undefined;
  const sizes: number[] = [];
  for (let k = 0; k < step.itemCount; k++) {
    let size: number | undefined;
    try {
      const scope = ctx.scope(step.id, k, () => undefined);
      const { fields } = resolveRequest(ctx.graph, step, k, scope, [], ctx.blobs);
      size = await measureInput(step.task.id, fields, ctx.durations);
    } catch {
      // The item's own run reports what is wrong with it.
      size = undefined;
    }
    if (size === undefined || !(size > 0)) return undefined;
    sizes.push(size);
  }
  if (Math.max(...sizes) <= Math.min(...sizes) * ALIKE) return undefined;
  // Stable: equal sizes keep file order.
  const order = sizes.map((size, k) => ({ size, k })).sort((a, b) => b.size - a.size || a.k - b.k);
  return order.map(({ k }) => step.offset + k);
}
