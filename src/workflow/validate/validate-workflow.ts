import { join } from 'node:path';
import type { ModelInfo } from '../../service/index.js';
import { analyzeSteps } from '../graph/analyze-steps.js';
import { expandGraph } from '../graph/expand-graph.js';
import type { JobGraph } from '../graph/job-graph.js';
import { type GivenInputs, resolveInputs } from '../inputs/resolve-inputs.js';
import { itemsOfStep, resolveSources } from '../graph/resolve-sources.js';
import { loadModelSource, type ModelSource } from '../models/model-source.js';
import type { FilledValue } from '../render/fill-defaults.js';
import { RULES, type RuleContext } from '../rules/index.js';
import type { Workflow } from '../types.js';
import { WORKFLOW_CODES, WorkflowError, WorkflowInvalidError } from '../workflow-error.js';
import { buildPlan, type Plan } from './build-plan.js';
import { loadWorkflow } from './load-workflow.js';

/** Options for {@link validateWorkflow}. */
export interface ValidateOptions {
  /** Inputs given by the user (`--input`, `--inputs`). */
  readonly inputs?: GivenInputs;
  /** Check against cached models only (the cache file, else the built-in catalogue). @default false */
  readonly offline?: boolean;
  /** Fetches the live model list; given when an API key is present. */
  readonly fetchModels?: () => Promise<readonly ModelInfo[]>;
  /** Cached model list. @default `.deflow/models.json` beside the workflow */
  readonly modelCacheFile?: string;
  /** Folder a relative workflow path is read from. @default process.cwd() */
  readonly cwd?: string;
  /**
   * `--keep-going`: when every problem is one item's (its input file, a value read from it),
   * the workflow is valid without those items: they come back in `excluded` and the graph is
   * built. `'workflow'` follows the workflow's `defaults.keep_going`. @default false
   */
  readonly keepGoing?: boolean | 'workflow';
  /**
   * Opens and sniffs every input file known before the run (`inputFiles`). A queue worker
   * passes false: the coordinator checked them, and a missing one fails its job at upload.
   * @default true
   */
  readonly checkInputFiles?: boolean;
}

/** The outcome of validation. `graph` and `plan` are present exactly when `ok`. */
export interface ValidationResult {
  readonly ok: boolean;
  /** Sorted by file, line and column. */
  readonly errors: readonly WorkflowError[];
  readonly warnings: readonly WorkflowError[];
  readonly workflow?: Workflow;
  readonly models?: ModelSource;
  readonly graph?: JobGraph;
  readonly plan?: Plan;
  /**
   * With keep-going: the problems of items left out of the run (each carries `item`), sorted;
   * the graph still holds their nodes, which the engine skips. Empty otherwise.
   */
  readonly excluded: readonly WorkflowError[];
}

/**
 * Validates a workflow file: YAML (positions, duplicate keys, alias bombs), the JSON Schema,
 * then every semantic rule, then expands the graph. Returns every problem found instead of
 * throwing (an unreadable or oversized file included). Sends nothing that costs money: the
 * only possible network call is `fetchModels`.
 */
export async function validateWorkflow(file: string, options: ValidateOptions = {}): Promise<ValidationResult> {
  let loaded: Awaited<ReturnType<typeof loadWorkflow>>;
  try {
    loaded = await loadWorkflow(file, options.cwd === undefined ? {} : { cwd: options.cwd });
  } catch (error) {
    if (error instanceof WorkflowError) return { ok: false, errors: [error], warnings: [], excluded: [] };
    throw error;
  }
  const workflow = loaded.workflow;
  if (!workflow) return { ok: false, errors: sortProblems(loaded.errors), warnings: [], excluded: [] };
  const errors: WorkflowError[] = [...loaded.errors];
  const warnings: WorkflowError[] = [];
  const context = await createRuleContext(workflow, options, errors, warnings);
  for (const rule of RULES) {
    if (rule.name === 'inputFiles' && options.checkInputFiles === false) continue;
    await rule.check(context);
  }
  const sortedErrors = sortProblems(errors);
  const sortedWarnings = sortProblems(warnings);
  const { models, sources, analysis } = context;
  const keepGoing = options.keepGoing === 'workflow' ? workflow.keepGoing : (options.keepGoing ?? false);
  // Keep going only past problems of single items: anything else would fail every item.
  const excluded = keepGoing && sortedErrors.every((e) => e.item !== undefined) ? sortedErrors : [];
  if (sortedErrors.length > excluded.length) return { ok: false, errors: sortedErrors, warnings: sortedWarnings, workflow, models, excluded: [] };
  const byStep = new Map<string, FilledValue[]>();
  for (const fill of context.fills) byStep.set(fill.step, [...(byStep.get(fill.step) ?? []), fill]);
  let graph: JobGraph;
  try {
    graph = await expandGraph(workflow, { values: context.inputs }, { models, sources, analysis, fills: byStep });
  } catch (error) {
    // The rules cover what expansion checks, except an output folder that renders empty.
    if (error instanceof WorkflowInvalidError) return { ok: false, errors: sortProblems(error.errors), warnings: sortedWarnings, workflow, models, excluded: [] };
    throw error;
  }
  return { ok: true, errors: [], warnings: sortedWarnings, workflow, models, graph, plan: buildPlan(graph), excluded };
}

/**
 * Everything the rules read: resolved inputs (their problems go to `errors`), the model
 * source, the step analysis and the item sources. Exported so each rule can be tested alone.
 */
export async function createRuleContext(
  workflow: Workflow,
  options: Omit<ValidateOptions, 'cwd'>,
  errors: WorkflowError[],
  warnings: WorkflowError[],
): Promise<RuleContext> {
  const inputs = resolveInputs(workflow, options.inputs);
  errors.push(...inputs.errors);
  const { source: models, warnings: modelWarnings } = await loadModelSource({
    offline: options.offline ?? false,
    cacheFile: options.modelCacheFile ?? join(workflow.dir, '.deflow', 'models.json'),
    ...(options.fetchModels ? { fetchModels: options.fetchModels } : {}),
  });
  for (const warning of modelWarnings) warnings.push(new WorkflowError(WORKFLOW_CODES.model, workflow.locator.at([]), warning));
  const analysis = analyzeSteps(workflow);
  const sources = await resolveSources(workflow, inputs.values);
  return {
    workflow,
    inputs: inputs.values,
    models,
    analysis,
    sources,
    itemsOf: (id) => itemsOfStep(id, analysis, sources),
    fills: [],
    report: (error) => errors.push(error),
    warn: (warning) => warnings.push(warning),
  };
}

/** Sorts problems by position and drops exact repeats, so output is stable run to run. */
export function sortProblems(problems: readonly WorkflowError[]): WorkflowError[] {
  const seen = new Set<string>();
  const unique = problems.filter((p) => {
    const key = `${p.code}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.sort((a, b) => {
    const x = a.location;
    const y = b.location;
    return compare(x.file, y.file) || x.line - y.line || x.col - y.col || (a.item?.index ?? -1) - (b.item?.index ?? -1) || compare(a.message, b.message) || compare(a.code, b.code);
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
