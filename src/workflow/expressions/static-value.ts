import type { ContextName, Template, ValueTemplate } from '../types.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import { type PreparedScope, renderTemplate, renderValue } from './evaluate.js';
import type { ExpressionScope } from './expression-scope.js';

/** What is known about a value before the run: its value, nothing yet, or why it fails. */
export type StaticValue =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'error'; readonly error: WorkflowError };

/** The contexts a template or value tree reads (syntax errors make it `undefined`: not knowable). */
export function contextsOf(value: ValueTemplate | Template): Set<ContextName> | undefined {
  const contexts = new Set<ContextName>();
  const visitTemplate = (template: Template): boolean => {
    for (const part of template.parts) {
      if (typeof part === 'string') continue;
      if (!part.ast) return false;
      for (const reference of part.references) contexts.add(reference.context);
    }
    return true;
  };
  const visit = (node: ValueTemplate): boolean => {
    if (node.kind === 'template') return visitTemplate(node.template);
    if (node.kind === 'array') return node.items.every(visit);
    if (node.kind === 'object') return node.entries.every(([, entry]) => visit(entry));
    return true;
  };
  const ok = 'parts' in value ? visitTemplate(value) : visit(value);
  return ok ? contexts : undefined;
}

/**
 * Evaluates a value now when it only reads contexts in `available` (inputs, and item when the
 * caller has one); otherwise the value is `unknown` until the run.
 */
export function staticValue(
  value: ValueTemplate | Template,
  available: ReadonlySet<ContextName>,
  scope: ExpressionScope | PreparedScope,
  /** `contextsOf(value)`, when the caller evaluates the same value for many items. */
  known?: Set<ContextName>,
): StaticValue {
  if ('kind' in value && value.kind === 'literal') return { kind: 'value', value: value.value };
  const contexts = known ?? contextsOf(value);
  if (!contexts) return { kind: 'unknown' };
  for (const context of contexts) if (!available.has(context)) return { kind: 'unknown' };
  try {
    return { kind: 'value', value: 'parts' in value ? renderTemplate(value, scope) : renderValue(value, scope) };
  } catch (error) {
    const location = 'parts' in value ? value : value.kind === 'template' ? value.template : undefined;
    const first = location?.parts.find((p) => typeof p !== 'string');
    const where = first && typeof first !== 'string' ? first.location : undefined;
    const reason = `cannot evaluate ${error instanceof Error ? error.message.replace(/^.*?: cannot evaluate /, '') : String(error)}`;
    return where ? { kind: 'error', error: new WorkflowError(WORKFLOW_CODES.expression, where, reason, { cause: error }) } : { kind: 'unknown' };
  }
}
