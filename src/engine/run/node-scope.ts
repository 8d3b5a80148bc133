/**
 * What a node's expressions see (`inputs`, `item`, `steps`, `run`), converted to evaluator
 * data. `inputs` and `run` are the same for every node of a run, so they are converted once;
 * only the item and the upstream results are converted per node.
 */
import { data } from '@actions/expressions';
import type { JobGraph, PreparedScope, ResultLookup } from '../../workflow/index.js';
import { prepareScope } from '../../workflow/index.js';

export type ScopeBuilder = (stepId: string, k: number, results: ResultLookup) => PreparedScope;

/** A builder of node scopes for `graph` in the run `run`. */
export function createScopeBuilder(graph: JobGraph, run: { readonly id: string; readonly started_at: string }): ScopeBuilder {
  const shared = prepareScope({ inputs: graph.inputs, run });
  const inputs = shared.get('inputs')!;
  const runData = shared.get('run')!;
  return (stepId, k, results) => {
    const scope = graph.scope(stepId, k, results, run);
    const own = prepareScope({ item: scope.item, steps: scope.steps ?? {} });
    return new data.Dictionary(
      { key: 'inputs', value: inputs },
      { key: 'item', value: own.get('item')! },
      { key: 'steps', value: own.get('steps')! },
      { key: 'run', value: runData },
    );
  };
}
