/**
 * What a node's expressions see (`inputs`, `item`, `steps`, `run`). `inputs` and `run` are the
 * same for every node of a run, so when an expression needs them as evaluator data they are
 * converted once for the run; the item and the upstream results per node, and only if needed.
 */
import type { JobGraph, PreparedScope, ResultLookup } from '../../workflow/index.js';
import { prepareScope } from '../../workflow/index.js';

export type ScopeBuilder = (stepId: string, k: number, results: ResultLookup) => PreparedScope;

/** A builder of node scopes for `graph` in the run `run`. */
export function createScopeBuilder(graph: JobGraph, run: { readonly id: string; readonly started_at: string }): ScopeBuilder {
  const shared = prepareScope({ inputs: graph.inputs, run });
  return (stepId, k, results) => {
    const scope = graph.scope(stepId, k, results, run);
    return prepareScope({ inputs: graph.inputs, item: scope.item, steps: scope.steps ?? {}, run }, shared);
  };
}
