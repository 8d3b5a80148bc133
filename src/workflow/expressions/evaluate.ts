import { data, Evaluator } from '@actions/expressions';
import { DeflowError } from '../../common/index.js';
import type { CompiledExpression, Condition, Template, ValueTemplate } from '../types.js';
import { WORKFLOW_CODES } from '../workflow-error.js';
import { CONTEXT_NAMES } from './compile-expression.js';
import { fromExpressionData, toExpressionData } from './expression-data.js';
import { EVALUATE, readPath } from './read-path.js';
import type { ExpressionScope } from './expression-scope.js';

type ContextKey = keyof ExpressionScope;

/**
 * A scope ready for many evaluations. A context is converted to evaluator data only when an
 * expression needs the evaluator (a plain property path such as `item.text` reads the value
 * as is, see {@link evaluateExpression}), and at most once.
 */
export class PreparedScope {
  private readonly converted: Partial<Record<ContextKey, data.ExpressionData>> = {};
  private dictionary: data.Dictionary | undefined;

  /**
   * @param raw the contexts; absent ones are null (`steps`: empty).
   * @param shared a scope whose converted contexts are reused where `raw` holds the same object
   *   (the inputs and run of every node of a run).
   */
  constructor(
    readonly raw: ExpressionScope,
    private readonly shared?: PreparedScope,
  ) {}

  /** The value of a context as expressions see it before conversion. */
  context(key: ContextKey): unknown {
    return this.raw[key] ?? (key === 'steps' ? EMPTY_STEPS : null);
  }

  /** The evaluator's dictionary of every context. */
  data(): data.Dictionary {
    this.dictionary ??= new data.Dictionary(...CONTEXT_NAMES.map((key) => ({ key, value: this.contextData(key) })));
    return this.dictionary;
  }

  private contextData(key: ContextKey): data.ExpressionData {
    const { shared } = this;
    if (shared !== undefined && this.raw[key] !== undefined && this.raw[key] === shared.raw[key]) return shared.contextData(key);
    this.converted[key] ??= toExpressionData(this.context(key));
    return this.converted[key];
  }
}

const EMPTY_STEPS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Prepares a scope for many evaluations (see {@link PreparedScope}). */
export function prepareScope(scope: ExpressionScope, shared?: PreparedScope): PreparedScope {
  return new PreparedScope(scope, shared);
}

/**
 * Prepares the scopes of many items over the same inputs (no steps, no run): the inputs are
 * converted at most once, each item only if an expression needs the evaluator.
 */
export function itemScopes(inputs: ExpressionScope['inputs']): (item: unknown) => PreparedScope {
  const shared = new PreparedScope(inputs === undefined ? {} : { inputs });
  return (item) => new PreparedScope(inputs === undefined ? { item: item ?? null } : { inputs, item: item ?? null }, shared);
}

/** A prepared scope as is, or a plain scope prepared. */
export function toPreparedScope(scope: ExpressionScope | PreparedScope): PreparedScope {
  return scope instanceof PreparedScope ? scope : new PreparedScope(scope);
}

/** Evaluates one compiled expression (never `eval`: GitHub's evaluator walks the tree). */
export function evaluateExpression(expression: CompiledExpression, scope: ExpressionScope | PreparedScope): unknown {
  if (!expression.ast) {
    throw new DeflowError(WORKFLOW_CODES.expression, `cannot evaluate an expression that did not parse: ${expression.text}`);
  }
  const prepared = toPreparedScope(scope);
  const read = readPath(expression.ast, prepared);
  if (read !== EVALUATE) return read;
  try {
    return fromExpressionData(new Evaluator(expression.ast, prepared.data()).evaluate());
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
