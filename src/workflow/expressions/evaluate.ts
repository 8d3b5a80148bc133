import { data, Evaluator } from '@actions/expressions';
import { DeflowError } from '../../common/index.js';
import type { CompiledExpression, Condition, Template, ValueTemplate } from '../types.js';
import { WORKFLOW_CODES } from '../workflow-error.js';
import { fromExpressionData, toExpressionData } from './expression-data.js';

/**
 * What expressions see. `steps` holds, for each upstream step id, its result for this item
 * (`{ request_id, result_url, text, json, path, cost }`), or for a gather the same keys each
 * holding the list of all items' values (see `gatherResults`). Absent contexts are null.
 */
export interface ExpressionScope {
  readonly inputs?: Readonly<Record<string, unknown>>;
  readonly item?: unknown;
  readonly steps?: Readonly<Record<string, unknown>>;
  readonly run?: { readonly id: string; readonly started_at: string };
}

/** A scope converted once to evaluator data, for evaluating many expressions against it. */
export type PreparedScope = data.Dictionary;

/** Converts a scope once; pass the result to the evaluate functions to avoid converting per expression. */
export function prepareScope(scope: ExpressionScope): PreparedScope {
  return new data.Dictionary(
    { key: 'inputs', value: toExpressionData(scope.inputs ?? null) },
    { key: 'item', value: toExpressionData(scope.item ?? null) },
    { key: 'steps', value: toExpressionData(scope.steps ?? {}) },
    { key: 'run', value: toExpressionData(scope.run ?? null) },
  );
}

/**
 * Prepares the scopes of many items over the same inputs (no steps, no run): the inputs are
 * converted once, each item when its scope is made. The converted data is only read by the
 * evaluator, so every scope shares it.
 */
export function itemScopes(inputs: ExpressionScope['inputs']): (item: unknown) => PreparedScope {
  const inputsData = toExpressionData(inputs ?? null);
  const steps = toExpressionData({});
  const run = toExpressionData(null);
  return (item) => new data.Dictionary({ key: 'inputs', value: inputsData }, { key: 'item', value: toExpressionData(item ?? null) }, { key: 'steps', value: steps }, { key: 'run', value: run });
}

/** A prepared scope as is, or a plain scope converted. */
export function toPreparedScope(scope: ExpressionScope | PreparedScope): PreparedScope {
  return scope instanceof data.Dictionary ? scope : prepareScope(scope);
}

/** Evaluates one compiled expression (never `eval`: GitHub's evaluator walks the tree). */
export function evaluateExpression(expression: CompiledExpression, scope: ExpressionScope | PreparedScope): unknown {
  if (!expression.ast) {
    throw new DeflowError(WORKFLOW_CODES.expression, `cannot evaluate an expression that did not parse: ${expression.text}`);
  }
  const context = toPreparedScope(scope);
  try {
    return fromExpressionData(new Evaluator(expression.ast, context).evaluate());
  } catch (error) {
    const where = `${expression.location.file}:${expression.location.line}:${expression.location.col}`;
    throw new DeflowError(
      WORKFLOW_CODES.expression,
      `${where}: ${expression.location.path}: cannot evaluate "${expression.text.trim()}": ${error instanceof Error ? error.message : String(error)}`,
      { cause: error, details: { ...expression.location } },
    );
  }
}

/**
 * Renders a template: a single expression keeps its type (a number stays a number, a list a
 * list); otherwise the parts are joined as text, with lists and objects written as JSON and
 * null as an empty string.
 */
export function renderTemplate(template: Template, scope: ExpressionScope | PreparedScope): unknown {
  const context = toPreparedScope(scope);
  if (template.single) return evaluateExpression(template.parts[0] as CompiledExpression, context);
  let out = '';
  for (const part of template.parts) out += typeof part === 'string' ? part : interpolate(evaluateExpression(part, context));
  return out;
}

/** Renders a `with` value tree. A field whose single expression renders to null is left out by the caller. */
export function renderValue(value: ValueTemplate, scope: ExpressionScope | PreparedScope): unknown {
  switch (value.kind) {
    case 'literal':
      return value.value;
    case 'template':
      return renderTemplate(value.template, scope);
    case 'array':
      return value.items.map((item) => renderValue(item, scope));
    case 'object':
      return Object.fromEntries(value.entries.map(([key, entry]) => [key, renderValue(entry, scope)]));
  }
}

/** Evaluates a step's `if` (truthiness as in Actions: false, 0, '', null are false). */
export function evaluateCondition(condition: Condition | undefined, scope: ExpressionScope | PreparedScope): boolean {
  if (!condition) return true;
  if (condition.kind === 'literal') return condition.value;
  const value = evaluateExpression(condition.expression, scope);
  return !(value === false || value === 0 || value === '' || value === null || Number.isNaN(value));
}

/**
 * Turns the results of every item of a fanned-out step into what a gathering step sees:
 * each key holds the list of that key across items, in item order.
 */
export function gatherResults(results: readonly Readonly<Record<string, unknown>>[]): Record<string, unknown[]> {
  const keys = ['request_id', 'result_url', 'text', 'json', 'path', 'cost'];
  return Object.fromEntries(keys.map((key) => [key, results.map((r) => r[key] ?? null)]));
}

function interpolate(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
