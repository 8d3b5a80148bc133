import { didYouMean } from '../did-you-mean.js';
import { expressionsOf } from '../expressions/compile-template.js';
import { GATHER_MISSING, JSON_KINDS, RUN_FIELDS, STEP_RESULT_FIELDS, TEXT_KINDS } from '../expressions/known-properties.js';
import { referencedStepId, stepExpressions } from '../graph/step-references.js';
import { STANDARD_ITEM_FIELDS } from '../items/item-list.js';
import type { CompiledExpression, Reference, StepDef, Template } from '../types.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule, RuleContext } from './rule-context.js';

/**
 * Every context property an expression names exists: declared inputs, item fields, result
 * fields of a step that offer them for its result kind, and run fields. `item` only exists in
 * a step that fans out; for_each paths and `output` may only use inputs.
 */
export const expressionContexts: Rule = {
  name: 'expressionContexts',
  check(context) {
    const { workflow } = context;
    const inputsOnly = (template: Template): void => {
      for (const expression of expressionsOf(template)) checkExpression(context, expression, undefined);
    };
    inputsOnly(workflow.output);
    for (const step of workflow.steps) {
      if (step.forEach?.kind === 'glob') step.forEach.patterns.forEach(inputsOnly);
      if (step.forEach?.kind === 'file') inputsOnly(step.forEach.file);
      for (const { expression } of stepExpressions(step)) checkExpression(context, expression, step);
    }
  },
};

function checkExpression(context: RuleContext, expression: CompiledExpression, step: StepDef | undefined): void {
  for (const reference of expression.references) {
    const reason = step ? problemInStep(context, reference, step) : reference.context === 'inputs' ? inputProblem(context, reference) : 'only inputs can be used here (items and paths are listed before the run)';
    if (reason) {
      // Point at the name that is wrong: the context, its property, or a step's property.
      const segment = typeof reason === 'string' ? (reference.context === 'steps' ? 2 : 1) : reason.segment;
      const at = reference.locations[segment] ?? reference.locations[reference.locations.length - 1]!;
      context.report(new WorkflowError(WORKFLOW_CODES.expression, at, typeof reason === 'string' ? reason : reason.text));
    }
  }
}

type Problem = string | { text: string; segment: number } | undefined;

function problemInStep(context: RuleContext, reference: Reference, step: StepDef): Problem {
  const name = reference.path[0];
  switch (reference.context) {
    case 'inputs':
      return inputProblem(context, reference);
    case 'run':
      return typeof name === 'string' && !includes(RUN_FIELDS, name) ? `unknown property run.${name}; expected one of ${RUN_FIELDS.join(', ')}${didYouMean(name, RUN_FIELDS)}` : undefined;
    case 'item': {
      if (!step.forEach) return { text: `"item" is only set in a step with for_each; steps.${step.id} runs once`, segment: 0 };
      const items = context.itemsOf(step.id);
      if (typeof name !== 'string' || name === '*' || !items) return undefined;
      const known = [...STANDARD_ITEM_FIELDS, ...items.fields];
      return includes(known, name) ? undefined : `unknown property item.${name}; items have ${known.join(', ')}${didYouMean(name, known)}`;
    }
    case 'steps':
      return stepProblem(context, reference, step);
  }
}

function inputProblem(context: RuleContext, reference: Reference): Problem {
  const name = reference.path[0];
  if (typeof name !== 'string' || name === '*') return undefined;
  const declared = [...context.workflow.inputs.keys()];
  if (includes(declared, name)) return undefined;
  return declared.length === 0 ? `unknown input "${name}"; this workflow declares no inputs` : `unknown input "${name}"; declared inputs: ${declared.join(', ')}${didYouMean(name, declared)}`;
}

function stepProblem(context: RuleContext, reference: Reference, step: StepDef): Problem {
  const id = referencedStepId(context.workflow, reference);
  const property = reference.path[1];
  // An unknown step id is reported by stepsExist.
  if (id === undefined || typeof property !== 'string' || property === '*') return undefined;
  const target = context.workflow.stepById.get(id)!;
  if (property.toLowerCase() === GATHER_MISSING) return missingProblem(context, step, id);
  if (!includes(STEP_RESULT_FIELDS, property)) {
    return `unknown property steps.${id}.${property}; expected one of ${STEP_RESULT_FIELDS.join(', ')}${didYouMean(property, STEP_RESULT_FIELDS)}`;
  }
  const kind = target.spec?.resultKind;
  const lower = property.toLowerCase();
  if (kind && lower === 'text' && !TEXT_KINDS.includes(kind)) return `steps.${id}.text is not available: ${target.task} yields ${article(kind)} result; use steps.${id}.result_url or steps.${id}.path`;
  if (kind && lower === 'json' && !JSON_KINDS.includes(kind)) return `steps.${id}.json is not available: ${target.task} yields ${article(kind)} result${TEXT_KINDS.includes(kind) ? `; use steps.${id}.text` : ''}`;
  if (lower === 'path' && !target.save) return `steps.${id}.path is not available: steps.${id} has no save`;
  return undefined;
}

/** `steps.<id>.missing` exists only where a step gathers `<id>` with `gather: partial`. */
function missingProblem(context: RuleContext, step: StepDef, id: string): Problem {
  const gathers = context.analysis.upstream.get(step.id)?.some((edge) => edge.from === id && edge.kind === 'all') === true;
  if (gathers && step.gather === 'partial') return undefined;
  if (!gathers) return `steps.${id}.missing is only set in a step that gathers steps.${id} (reads it without fanning out over it)`;
  return `steps.${id}.missing is only set with gather: partial (steps.${step.id} runs only when every item of steps.${id} succeeded)`;
}

function includes(list: readonly string[], name: string): boolean {
  const lower = name.toLowerCase();
  return list.some((entry) => entry.toLowerCase() === lower);
}

function article(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}
