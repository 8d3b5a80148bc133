import { resolve } from 'node:path';
import { renderTemplate } from '../expressions/evaluate.js';
import { type GivenInputs, resolveInputs } from '../inputs/resolve-inputs.js';
import type { ItemSourceResult } from '../items/resolve-item-source.js';
import { itemsOfStep, resolveSources } from './resolve-sources.js';
import { createModelSource, type ModelSource } from '../models/model-source.js';
import { MODEL_CATALOGUE } from '../../service/index.js';
import type { FilledValue } from '../render/fill-defaults.js';
import { outputDirProblem } from '../render/resolve-save-path.js';
import type { Workflow } from '../types.js';
import { WORKFLOW_CODES, WorkflowError, WorkflowInvalidError } from '../workflow-error.js';
import { analyzeSteps, type StepAnalysis } from './analyze-steps.js';
import { createGraphStep, type GraphStep, JobGraph } from './job-graph.js';

/** Options for {@link expandGraph}; validation passes what it already computed so nothing is listed twice. */
export interface ExpandGraphOptions {
  /** @default the built-in model catalogue */
  readonly models?: ModelSource;
  /** Item sources already resolved (by step id). */
  readonly sources?: ReadonlyMap<string, ItemSourceResult>;
  readonly analysis?: StepAnalysis;
  /** Fields filled from defaults, by step id. */
  readonly fills?: ReadonlyMap<string, readonly FilledValue[]>;
}

/**
 * Expands a loaded workflow and its inputs into a {@link JobGraph}: lists each source's items
 * once (globs sorted, files read), orders the steps, and sizes every step. Throws a
 * WorkflowInvalidError when inputs, sources or the step order are invalid; call
 * `validateWorkflow` first for the full check (fields, models, files), which returns the graph.
 */
export async function expandGraph(
  workflow: Workflow,
  inputs: GivenInputs | Readonly<Record<string, unknown>> = {},
  options: ExpandGraphOptions = {},
): Promise<JobGraph> {
  const given: GivenInputs = 'values' in inputs && typeof inputs.values === 'object' && inputs.values !== null ? (inputs as GivenInputs) : { values: inputs as Record<string, unknown> };
  const resolved = resolveInputs(workflow, given);
  if (resolved.errors.length > 0) throw new WorkflowInvalidError(resolved.errors);
  const analysis = options.analysis ?? analyzeSteps(workflow);
  if (!analysis.order) {
    const first = workflow.stepById.get(analysis.cycle?.[0] ?? '');
    const at = first ? workflow.locator.at(first.path, { key: true }) : workflow.locator.at(['steps']);
    throw new WorkflowInvalidError([new WorkflowError(WORKFLOW_CODES.cycle, at, `steps wait for each other in a cycle: ${(analysis.cycle ?? []).join(' → ')}`)]);
  }
  const sources = options.sources ?? (await resolveSources(workflow, resolved.values));
  const failed = [...sources.values()].flatMap((r) => (r.ok ? [] : [r.error]));
  if (failed.length > 0) throw new WorkflowInvalidError(failed);
  const steps: GraphStep[] = [];
  let offset = 0;
  for (const [order, id] of analysis.order.entries()) {
    const def = workflow.stepById.get(id)!;
    if (!def.spec) throw new WorkflowInvalidError([new WorkflowError(WORKFLOW_CODES.task, workflow.locator.at([...def.path, 'task']), `unknown task "${def.task}"`)]);
    const step = createGraphStep({
      id,
      def,
      task: def.spec,
      order,
      offset,
      root: analysis.rootOf(id),
      upstream: analysis.upstream.get(id) ?? [],
      downstream: analysis.downstream.get(id) ?? [],
      filled: options.fills?.get(id) ?? [],
      items: itemsOfStep(id, analysis, sources),
    });
    offset += step.itemCount;
    steps.push(step);
  }
  return new JobGraph({
    workflow,
    inputs: resolved.values,
    outputDir: resolveOutputDir(workflow, resolved.values),
    models: options.models ?? createModelSource('built-in', 'built-in catalogue', MODEL_CATALOGUE),
    steps,
    edges: analysis.edges,
  });
}

/** The absolute output folder: `output` rendered with the inputs, relative to the workflow's folder. */
export function resolveOutputDir(workflow: Workflow, inputs: Readonly<Record<string, unknown>>): string {
  const at = workflow.locator.at(['output']);
  let rendered: string;
  try {
    rendered = String(renderTemplate(workflow.output, { inputs }) ?? '');
  } catch (error) {
    throw new WorkflowInvalidError([new WorkflowError(WORKFLOW_CODES.expression, at, `cannot render the output folder (${error instanceof Error ? error.message : String(error)})`, { cause: error })]);
  }
  const absolute = resolve(workflow.dir, rendered);
  const problem = outputDirProblem(rendered, absolute, workflow.dir);
  if (problem !== undefined) throw new WorkflowInvalidError([new WorkflowError(WORKFLOW_CODES.savePath, at, problem)]);
  return absolute;
}
