import type { TaskSpec } from '../../service/index.js';
import { gatherResults } from '../expressions/evaluate.js';
import type { ExpressionScope } from '../expressions/expression-scope.js';
import type { ItemContext, ItemList } from '../items/item-list.js';
import type { ModelSource } from '../models/model-source.js';
import type { FilledValue } from '../render/fill-defaults.js';
import type { StepDef, Workflow } from '../types.js';
import type { StepEdge } from './analyze-steps.js';

/** What a finished job offers to the expressions of the jobs after it (`steps.<id>.*`). */
export interface StepResult {
  readonly request_id?: string | null;
  readonly result_url?: string | null;
  /** The result's text (text and JSON results). */
  readonly text?: string | null;
  /** The parsed result (JSON and vector results). */
  readonly json?: unknown;
  /** Absolute path of the saved file, when the step has `save`. */
  readonly path?: string | null;
  readonly cost?: number | null;
}

/** Looks up the result of node `k` of a step; undefined while it is not done (or it failed). */
export type ResultLookup = (stepId: string, k: number) => StepResult | undefined;

/** A node: item `k` of a step (k is 0 for a step that runs once). */
export interface NodeRef {
  readonly step: GraphStep;
  readonly k: number;
}

/** One step of the graph: its nodes are items 0..itemCount-1, numbered globally from `offset`. */
export interface GraphStep {
  readonly id: string;
  readonly def: StepDef;
  readonly task: TaskSpec;
  /** Position in run order (dependencies first). */
  readonly order: number;
  /** Global index of node 0; node k is `offset + k`. Lets the engine keep per-node state in typed arrays. */
  readonly offset: number;
  /** Number of nodes: the items it fans out over, or 1. */
  readonly itemCount: number;
  readonly fansOut: boolean;
  /** The step whose source its items come from (itself for glob/items/file/matrix); undefined when it runs once. */
  readonly root: string | undefined;
  /** How this step waits for others; `kind` says which of their nodes node k waits for. */
  readonly upstream: readonly StepEdge[];
  readonly downstream: readonly StepEdge[];
  /** Required fields filled from defaults when the model is known before the run (the rest are filled per job). */
  readonly filled: readonly FilledValue[];
  /** The items it fans out over (shared with its chain root); undefined for a step that runs once. */
  readonly items: ItemList | undefined;
  /** Item k as `item.*` sees it (built on each call); undefined for a step that runs once. */
  item(k: number): ItemContext | undefined;
}

/**
 * The expanded workflow: one node per (step, item), edges from chains, gathers and `needs`.
 * Compact by construction: items stay in their source lists (a path string, a record, or
 * nothing at all for a matrix), edges are stored per step pair, and nodes, dependencies and
 * item contexts are produced lazily, so 100,000 items cost little more than their paths.
 * Node k of a step depends, per upstream edge, on node k (`item`), every node (`all`), or node 0 (`one`).
 */
export class JobGraph {
  readonly workflow: Workflow;
  /** Resolved inputs (defaults filled). */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** Absolute output folder `save` paths resolve under. */
  readonly outputDir: string;
  readonly models: ModelSource;
  /** Steps in run order. */
  readonly steps: readonly GraphStep[];
  readonly edges: readonly StepEdge[];
  /** Total number of nodes (jobs, before `if` and the cache). */
  readonly nodeCount: number;
  readonly #byId: ReadonlyMap<string, GraphStep>;

  constructor(init: {
    workflow: Workflow;
    inputs: Readonly<Record<string, unknown>>;
    outputDir: string;
    models: ModelSource;
    steps: readonly GraphStep[];
    edges: readonly StepEdge[];
  }) {
    this.workflow = init.workflow;
    this.inputs = init.inputs;
    this.outputDir = init.outputDir;
    this.models = init.models;
    this.steps = init.steps;
    this.edges = init.edges;
    this.nodeCount = init.steps.reduce((n, s) => n + s.itemCount, 0);
    this.#byId = new Map(init.steps.map((s) => [s.id, s]));
  }

  /** The step with this id; throws a RangeError for an unknown id. */
  step(id: string): GraphStep {
    const step = this.#byId.get(id);
    if (!step) throw new RangeError(`unknown step ${id}`);
    return step;
  }

  /** Global index of node k of a step (0..nodeCount-1). */
  nodeIndex(stepId: string, k: number): number {
    const step = this.step(stepId);
    if (!(Number.isInteger(k) && k >= 0 && k < step.itemCount)) throw new RangeError(`steps.${stepId} has no item ${k}`);
    return step.offset + k;
  }

  /** The node at a global index (binary search over step offsets). */
  nodeAt(index: number): NodeRef {
    if (!(Number.isInteger(index) && index >= 0 && index < this.nodeCount)) throw new RangeError(`no node ${index}`);
    let low = 0;
    let high = this.steps.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.steps[mid]!.offset <= index) low = mid;
      else high = mid - 1;
    }
    // Steps with no items share their offset with the next step; skip to the one that owns it.
    while (this.steps[low]!.itemCount === 0 || index >= this.steps[low]!.offset + this.steps[low]!.itemCount) low++;
    const step = this.steps[low]!;
    return { step, k: index - step.offset };
  }

  /** Every node, step by step in run order, items in order. */
  *nodes(): Generator<NodeRef> {
    for (const step of this.steps) for (let k = 0; k < step.itemCount; k++) yield { step, k };
  }

  /** The nodes node k of a step waits for. */
  *dependencies(stepId: string, k: number): Generator<NodeRef> {
    for (const edge of this.step(stepId).upstream) yield* this.#ends(this.step(edge.from), edge.kind, k);
  }

  /** How many nodes node k of a step waits for (its in-degree), without listing them. */
  dependencyCount(stepId: string, k: number): number {
    let count = 0;
    for (const edge of this.step(stepId).upstream) {
      const from = this.step(edge.from);
      count += edge.kind === 'all' ? from.itemCount : edge.kind === 'item' ? (k < from.itemCount ? 1 : 0) : Math.min(1, from.itemCount);
    }
    return count;
  }

  /** The nodes that wait for node k of a step. */
  *dependents(stepId: string, k: number): Generator<NodeRef> {
    for (const edge of this.step(stepId).downstream) {
      const to = this.step(edge.to);
      if (edge.kind === 'item') {
        if (k < to.itemCount) yield { step: to, k };
      } else for (let j = 0; j < to.itemCount; j++) yield { step: to, k: j };
    }
  }

  /**
   * What the expressions of node k of a step see: inputs, its item, the results of the steps
   * it waits for (this item's, or for a gather the lists of all items'), and the run.
   */
  scope(stepId: string, k: number, results: ResultLookup, run: { id: string; started_at: string }): ExpressionScope {
    const step = this.step(stepId);
    const steps: Record<string, unknown> = {};
    for (const edge of step.upstream) {
      const from = this.step(edge.from);
      if (edge.kind === 'all' && step.def.gather === 'partial') {
        // Only the items that succeeded; the others are named in `missing`.
        const list: StepResult[] = [];
        const missing: string[] = [];
        for (let j = 0; j < from.itemCount; j++) {
          const result = results(from.id, j);
          if (result === undefined) missing.push(itemKeyOf(from, j));
          else list.push(result);
        }
        steps[from.id] = { ...gatherResults(list as Record<string, unknown>[]), missing };
      } else if (edge.kind === 'all') {
        const list: StepResult[] = [];
        for (let j = 0; j < from.itemCount; j++) list.push(results(from.id, j) ?? {});
        steps[from.id] = gatherResults(list as Record<string, unknown>[]);
      } else steps[from.id] = results(from.id, edge.kind === 'item' ? k : 0) ?? null;
    }
    return { inputs: this.inputs, item: step.item(k) ?? null, steps, run };
  }

  *#ends(from: GraphStep, kind: StepEdge['kind'], k: number): Generator<NodeRef> {
    if (kind === 'item') {
      if (k < from.itemCount) yield { step: from, k };
    } else if (kind === 'one') {
      if (from.itemCount > 0) yield { step: from, k: 0 };
    } else for (let j = 0; j < from.itemCount; j++) yield { step: from, k: j };
  }
}

/** Item k's stable key: its value when it is a string (a path), else its JSON; the step id for a step that runs once. */
export function itemKeyOf(step: GraphStep, k: number): string {
  if (step.items === undefined) {
    const item = step.item(k);
    if (!item) return step.id;
    return typeof item.value === 'string' ? item.value : JSON.stringify(item.value);
  }
  const value = step.items.valueAt(k);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Builds a graph step; items come from the shared list of its chain root. */
export function createGraphStep(init: Omit<GraphStep, 'item' | 'itemCount' | 'fansOut'>): GraphStep {
  const items = init.items;
  return { ...init, fansOut: items !== undefined, itemCount: items ? items.length : 1, item: (k) => items?.at(k) };
}
