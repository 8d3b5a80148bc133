import { expressionsOf } from '../expressions/compile-template.js';
import { templatesOf } from '../build/compile-value.js';
import type { CompiledExpression, Reference, StepDef, Workflow } from '../types.js';

/** A `steps.<id>` use inside a step, with the expression it is in. */
export interface StepReference {
  readonly reference: Reference;
  readonly expression: CompiledExpression;
  /** Where in the step: a `with` field name, `if` or `save`. */
  readonly where: { readonly kind: 'with'; readonly field: string } | { readonly kind: 'if' } | { readonly kind: 'save' };
}

/** Every compiled expression of a step, with where it stands. */
export function* stepExpressions(step: StepDef): Generator<{ expression: CompiledExpression; where: StepReference['where'] }> {
  for (const [field, value] of step.with) {
    for (const template of templatesOf(value)) for (const expression of expressionsOf(template.template)) yield { expression, where: { kind: 'with', field } };
  }
  if (step.if?.kind === 'expression') yield { expression: step.if.expression, where: { kind: 'if' } };
  if (step.save) for (const expression of expressionsOf(step.save)) yield { expression, where: { kind: 'save' } };
}

/** Every `steps.*` reference of a step. */
export function* stepReferences(step: StepDef): Generator<StepReference> {
  for (const { expression, where } of stepExpressions(step)) {
    for (const reference of expression.references) if (reference.context === 'steps') yield { reference, expression, where };
  }
}

/**
 * The step id a `steps.<id>` reference names, matched without regard to case as Actions'
 * evaluator does; undefined when it names none (or is computed).
 */
export function referencedStepId(workflow: Workflow, reference: Reference): string | undefined {
  const name = reference.path[0];
  if (typeof name !== 'string' || name === '*') return undefined;
  if (workflow.stepById.has(name)) return name;
  const lower = name.toLowerCase();
  return workflow.steps.find((s) => s.id.toLowerCase() === lower)?.id;
}
