import { isAbsolute, resolve } from 'node:path';
import { DeflowError } from '../../common/index.js';
import type { ExpressionScope } from '../expressions/expression-scope.js';
import { type PreparedScope, prepareScope, renderTemplate, renderValue, toPreparedScope } from '../expressions/evaluate.js';
import { contextsOf } from '../expressions/static-value.js';
import { type GraphStep, itemKeyOf, type JobGraph } from './job-graph.js';
import { WORKFLOW_CODES } from '../workflow-error.js';
import { checkFieldValue, checkModelLimits, coerceFieldValue } from '../render/check-field-value.js';
import { fillDefaults } from '../render/fill-defaults.js';
import { resolveSavePath } from '../render/resolve-save-path.js';

/** A job's request fields, rendered for one node. */
export interface RenderedRequest {
  /**
   * Fields by the service's v2 names. A file field holds an absolute local path, or the
   * `result_url` of an upstream job (to download and upload). Fields that rendered to null are left out.
   */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Required fields filled from the model's info.defaults or the field default. */
  readonly filled: readonly string[];
}

/** A partly known request: what can be rendered before the run, and which fields wait for upstream results. */
export interface KnownRequest {
  readonly fields: Readonly<Record<string, unknown>>;
  /** Fields whose value reads `steps` or `run` (known only when the upstream job is done). */
  readonly pending: readonly string[];
}

/**
 * Renders node k's request: evaluates `with`, leaves out fields that render to null, converts
 * strings to the field's type, fills required fields from defaults, resolves local file paths,
 * and checks every value against the field and the model's `info.limits`. Throws a DeflowError
 * (`E_WORKFLOW_LIMIT`, `E_WORKFLOW_EXPRESSION`) naming the step, item and field on any problem,
 * so nothing outside the limits is ever sent.
 */
export function renderRequest(graph: JobGraph, step: GraphStep, k: number, scope: ExpressionScope | PreparedScope): RenderedRequest {
  const prepared = toPreparedScope(scope);
  const fields: Record<string, unknown> = {};
  for (const [name, value] of step.def.with) {
    const rendered = renderValue(value, prepared);
    if (rendered !== null && rendered !== undefined) fields[name] = rendered;
  }
  const modelName = step.task.modelField ? fields[step.task.modelField] : undefined;
  const model = typeof modelName === 'string' ? graph.models.find(modelName) : undefined;
  const { filled, missing } = fillDefaults(step.task, (name) => name in fields, model);
  for (const fill of filled) fields[fill.field] = fill.value;
  const where = `steps.${step.id}${step.fansOut ? ` item ${k}` : ''}`;
  if (missing.length > 0) throw new DeflowError(WORKFLOW_CODES.required, `${where}: missing required field "${missing[0]!.name}"`, { details: { step: step.id, k } });
  for (const field of step.task.fields) {
    if (!(field.name in fields)) continue;
    let value = coerceFieldValue(field, fields[field.name]);
    const problem = checkFieldValue(field, value) ?? (model ? checkModelLimits(field, value, model) : undefined);
    if (problem) throw new DeflowError(WORKFLOW_CODES.limit, `${where}: with.${field.name}: ${problem}`, { details: { step: step.id, k, field: field.name } });
    if (field.file) value = Array.isArray(value) ? value.map((v) => localPath(graph, v)) : localPath(graph, value);
    fields[field.name] = value;
  }
  return { fields, filled: filled.map((f) => f.field) };
}

/**
 * The fields of node k that are known before the run (they read only inputs and the item),
 * and the names of those that wait for upstream results. For quotes and dry runs.
 */
export function renderKnownFields(graph: JobGraph, step: GraphStep, k: number): KnownRequest {
  const scope = prepareScope({ inputs: graph.inputs, item: step.item(k) ?? null });
  const fields: Record<string, unknown> = {};
  const pending: string[] = [];
  for (const [name, value] of step.def.with) {
    const contexts = contextsOf(value);
    if (!contexts || contexts.has('steps') || contexts.has('run')) {
      pending.push(name);
      continue;
    }
    const field = step.task.fields.find((f) => f.name === name);
    let rendered = renderValue(value, scope);
    if (rendered === null || rendered === undefined) continue;
    if (field) rendered = coerceFieldValue(field, rendered);
    if (field?.file) rendered = Array.isArray(rendered) ? rendered.map((v) => localPath(graph, v)) : localPath(graph, rendered);
    fields[name] = rendered;
  }
  const modelName = step.task.modelField ? fields[step.task.modelField] : undefined;
  const model = typeof modelName === 'string' ? graph.models.find(modelName) : undefined;
  if (!pending.includes(step.task.modelField ?? '')) {
    for (const fill of fillDefaults(step.task, (name) => name in fields || pending.includes(name), model).filled) fields[fill.field] = fill.value;
  }
  return { fields, pending };
}

/**
 * Where node k's result is saved (absolute, checked to stay inside the output folder), or
 * undefined when the step has no `save`. Throws UnsafeSavePathError for an escaping path.
 */
export function renderSavePath(graph: JobGraph, step: GraphStep, scope: ExpressionScope | PreparedScope): string | undefined {
  if (!step.def.save) return undefined;
  const rendered = renderTemplate(step.def.save, scope);
  return resolveSavePath(graph.outputDir, String(rendered ?? ''));
}

/** A stable identity of item k across runs: its path, its string, or its value as JSON; the step id for a step that runs once. */
export function itemKey(step: GraphStep, k: number): string {
  return itemKeyOf(step, k);
}

function localPath(graph: JobGraph, value: unknown): unknown {
  if (typeof value !== 'string' || /^[a-z][a-z0-9+.-]*:\/\//i.test(value) || isAbsolute(value)) return value;
  return resolve(graph.workflow.dir, value);
}
