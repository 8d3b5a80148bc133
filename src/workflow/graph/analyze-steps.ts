import type { StepDef, Workflow } from '../types.js';
import { referencedStepId, stepReferences } from './step-references.js';

/** Why one step waits for another. */
export type EdgeOrigin = 'chain' | 'needs' | 'ref';

/**
 * How node k of the downstream step depends on the upstream step:
 * `item` on node k (a per-item chain, or two steps fanned out over the same items),
 * `all` on every node (a gather: the upstream fans out, the downstream does not or fans out over other items),
 * `one` on its only node (the upstream does not fan out).
 */
export type EdgeKind = 'item' | 'all' | 'one';

/** A dependency between two steps. */
export interface StepEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: EdgeKind;
  readonly origins: readonly EdgeOrigin[];
}

/** The step-level shape of a workflow: edges, order, fan-out. Unknown step ids are left out (a rule reports them). */
export interface StepAnalysis {
  /** Step ids in run order (dependencies first, then file order); undefined when there is a cycle. */
  readonly order: readonly string[] | undefined;
  /** One cycle, as step ids with the first repeated at the end; undefined when there is none. */
  readonly cycle: readonly string[] | undefined;
  readonly edges: readonly StepEdge[];
  readonly upstream: ReadonlyMap<string, readonly StepEdge[]>;
  readonly downstream: ReadonlyMap<string, readonly StepEdge[]>;
  /** The step whose own source a step's items come from (itself for glob/items/file/matrix); undefined when it does not fan out. */
  rootOf(id: string): string | undefined;
}

/**
 * Finds every dependency: `for_each: <step>` (chain), `needs`, and each `steps.<id>` reference
 * in `with`, `if` and `save`. A reference implies the dependency, as results in Tekton do, so
 * a step can never read a result that is not there yet and nobody has to repeat it in `needs`.
 */
export function analyzeSteps(workflow: Workflow): StepAnalysis {
  const origins = new Map<string, Map<string, Set<EdgeOrigin>>>();
  const add = (to: string, from: string | undefined, origin: EdgeOrigin): void => {
    if (from === undefined || !workflow.stepById.has(from)) return;
    const byFrom = origins.get(to) ?? new Map<string, Set<EdgeOrigin>>();
    origins.set(to, byFrom);
    byFrom.set(from, (byFrom.get(from) ?? new Set()).add(origin));
  };
  for (const step of workflow.steps) {
    if (step.forEach?.kind === 'step') add(step.id, step.forEach.step, 'chain');
    for (const need of step.needs) add(step.id, need.id, 'needs');
    for (const { reference } of stepReferences(step)) add(step.id, referencedStepId(workflow, reference), 'ref');
  }
  const rootOf = memoRoots(workflow);
  const edges: StepEdge[] = [];
  for (const step of workflow.steps) {
    for (const [from, set] of origins.get(step.id) ?? []) {
      edges.push({ from, to: step.id, kind: edgeKind(workflow.stepById.get(from)!, step, rootOf), origins: [...set].sort() });
    }
  }
  const upstream = groupBy(edges, (e) => e.to);
  const downstream = groupBy(edges, (e) => e.from);
  const { order, cycle } = sortTopologically(workflow.steps, upstream);
  return { order, cycle, edges, upstream, downstream, rootOf };
}

function edgeKind(from: StepDef, to: StepDef, rootOf: (id: string) => string | undefined): EdgeKind {
  const fromRoot = rootOf(from.id);
  if (fromRoot === undefined) return 'one';
  if (to.forEach?.kind === 'step' && to.forEach.step === from.id) return 'item';
  return rootOf(to.id) === fromRoot ? 'item' : 'all';
}

function memoRoots(workflow: Workflow): (id: string) => string | undefined {
  const roots = new Map<string, string | undefined>();
  const rootOf = (id: string, seen: Set<string> = new Set()): string | undefined => {
    if (roots.has(id)) return roots.get(id);
    const step = workflow.stepById.get(id);
    let root: string | undefined;
    if (step?.forEach && step.forEach.kind !== 'step') root = id;
    else if (step?.forEach?.kind === 'step' && !seen.has(id)) root = rootOf(step.forEach.step, seen.add(id));
    roots.set(id, root);
    return root;
  };
  return (id) => rootOf(id);
}

/** Kahn's algorithm; ties go to file order so the order is stable. */
function sortTopologically(
  steps: readonly StepDef[],
  upstream: ReadonlyMap<string, readonly StepEdge[]>,
): { order: string[] | undefined; cycle: string[] | undefined } {
  const remaining = new Map(steps.map((s) => [s.id, new Set((upstream.get(s.id) ?? []).map((e) => e.from))]));
  const order: string[] = [];
  while (remaining.size > 0) {
    const ready = steps.find((s) => remaining.get(s.id)?.size === 0);
    if (!ready) return { order: undefined, cycle: findCycle(remaining) };
    remaining.delete(ready.id);
    for (const waiting of remaining.values()) waiting.delete(ready.id);
    order.push(ready.id);
  }
  return { order, cycle: undefined };
}

function findCycle(remaining: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  // Every remaining step waits on another remaining one, so walking "waits on" must revisit a step.
  const start = remaining.keys().next().value as string;
  const path: string[] = [];
  const seenAt = new Map<string, number>();
  let current = start;
  while (!seenAt.has(current)) {
    seenAt.set(current, path.length);
    path.push(current);
    const next = [...(remaining.get(current) ?? [])].find((id) => remaining.has(id));
    if (next === undefined) break;
    current = next;
  }
  // Reverse so the cycle reads in run order (a → b: b waits for a), then start it at the
  // step that comes first in the file, so the same loop is always reported the same way.
  const loop = path.slice(seenAt.get(current) ?? 0).reverse();
  const order = [...remaining.keys()];
  const first = loop.reduce((best, id, i) => (order.indexOf(id) < order.indexOf(loop[best]!) ? i : best), 0);
  const rotated = [...loop.slice(first), ...loop.slice(0, first)];
  return [...rotated, rotated[0] ?? current];
}

function groupBy(edges: readonly StepEdge[], key: (e: StepEdge) => string): Map<string, StepEdge[]> {
  const map = new Map<string, StepEdge[]>();
  for (const edge of edges) map.set(key(edge), [...(map.get(key(edge)) ?? []), edge]);
  return map;
}
