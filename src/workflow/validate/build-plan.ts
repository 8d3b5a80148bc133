import type { EdgeKind, EdgeOrigin } from '../graph/analyze-steps.js';
import type { JobGraph } from '../graph/job-graph.js';
import type { ModelSourceKind } from '../models/model-source.js';

/** The short plan `deflow validate` prints (and `--json` returns). */
export interface Plan {
  readonly workflow: string;
  readonly file: string;
  readonly output_dir: string;
  readonly model_source: { readonly kind: ModelSourceKind; readonly description: string };
  /** Total jobs (nodes), before `if` conditions and the cache. */
  readonly jobs: number;
  readonly steps: readonly PlanStep[];
  readonly edges: readonly { readonly from: string; readonly to: string; readonly kind: EdgeKind; readonly origins: readonly EdgeOrigin[] }[];
}

/** One step of the plan. */
export interface PlanStep {
  readonly id: string;
  readonly task: string;
  readonly items: number;
  readonly fans_out: boolean;
  /** `glob "a/*.mp3"`, `chain of transcribe`, or null for a step that runs once. */
  readonly source: string | null;
  readonly filled: readonly { readonly field: string; readonly value: unknown; readonly from: string }[];
}

/** Summarises a graph for people and CI. */
export function buildPlan(graph: JobGraph): Plan {
  return {
    workflow: graph.workflow.name,
    file: graph.workflow.displayFile,
    output_dir: graph.outputDir,
    model_source: { kind: graph.models.kind, description: graph.models.description },
    jobs: graph.nodeCount,
    steps: graph.steps.map((step) => ({
      id: step.id,
      task: step.task.id,
      items: step.itemCount,
      fans_out: step.fansOut,
      source: describeSource(graph, step.id),
      filled: step.filled.map(({ field, value, from }) => ({ field, value, from })),
    })),
    edges: graph.edges.map(({ from, to, kind, origins }) => ({ from, to, kind, origins })),
  };
}

function describeSource(graph: JobGraph, id: string): string | null {
  const step = graph.step(id);
  const source = step.def.forEach;
  if (!source) return null;
  if (source.kind === 'step') return `chain of ${source.step}`;
  return step.items?.describe ?? source.kind;
}
