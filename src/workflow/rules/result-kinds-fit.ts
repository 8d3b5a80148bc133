import type { FieldSpec, ResultKind } from '../../service/index.js';
import { TEXT_KINDS } from '../expressions/known-properties.js';
import { referencedStepId } from '../graph/step-references.js';
import { listOr } from '../schema/json-type.js';
import type { CompiledExpression, StepDef } from '../types.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule, RuleContext } from './rule-context.js';
import { taskSteps } from './task-steps.js';

/**
 * A step's result flows only where its kind fits: into a file field as a file of an accepted
 * kind (an image cannot go into `audio`), into a text field as text. A gather (the list of
 * every item's result) fits only fields that take several values.
 */
export const resultKindsFit: Rule = {
  name: 'resultKindsFit',
  check(context) {
    for (const step of taskSteps(context.workflow)) {
      for (const [name, value] of step.with) {
        const field = step.spec.fields.find((f) => f.name === name);
        if (!field || value.kind !== 'template' || !value.template.single) continue;
        const expression = value.template.parts[0] as CompiledExpression;
        const reference = expression.references[0];
        if (!reference?.bare || reference.context !== 'steps') continue;
        const id = referencedStepId(context.workflow, reference);
        const source = id === undefined ? undefined : context.workflow.stepById.get(id);
        if (!source?.spec || id === step.id) continue;
        const property = typeof reference.path[1] === 'string' ? reference.path[1].toLowerCase() : undefined;
        const reason = misfit(field, source.spec.resultKind, property, `steps.${id}`, source.task, isGather(context, id!, step));
        if (reason) context.report(new WorkflowError(WORKFLOW_CODES.kind, expression.location, reason));
      }
    }
  },
};

function misfit(field: FieldSpec, kind: ResultKind, property: string | undefined, ref: string, task: string, gather: boolean): string | undefined {
  const accepts = field.accepts ?? [];
  const from = `${ref} (${task})`;
  if (field.type === 'file' || field.type === 'files') {
    const wanted = `${listOr([...accepts])} file`;
    if (property !== undefined && property !== 'result_url' && property !== 'path') return `expected ${article(wanted)}, got ${ref}.${property}; pass ${ref}.result_url or ${ref}.path to send the result file`;
    if (!accepts.includes(kind)) return `expected ${article(wanted)}, got ${article(kind)} result from ${from}`;
    if (gather && field.type === 'file') return `expected one file, got a list: ${ref} fans out and this step gathers it; fan out over it with for_each: ${ref.slice(6)}`;
    return undefined;
  }
  if (accepts.length === 0) return undefined;
  if (property === 'result_url' || property === 'path') {
    return TEXT_KINDS.includes(kind) ? `expected text, got the ${property} of ${ref}; use ${ref}.text to pass its text` : `expected text, got ${article(kind)} file from ${from}`;
  }
  if (property === 'text' && !accepts.some((a) => TEXT_KINDS.includes(a) && TEXT_KINDS.includes(kind))) return `expected ${listOr([...accepts])}, got ${kind} from ${from}`;
  if (property === 'json' && !accepts.includes('json')) return `expected ${listOr([...accepts])}, got json from ${ref}.json; use ${ref}.text`;
  if (gather && field.type === 'string') return `expected one text, got a list: ${ref} fans out and this step gathers it; use join(${ref}.${property ?? 'text'}, ' ') or fan out with for_each`;
  return undefined;
}

function isGather(context: RuleContext, from: string, step: StepDef): boolean {
  return (context.analysis.upstream.get(step.id) ?? []).some((edge) => edge.from === from && edge.kind === 'all');
}

function article(text: string): string {
  return /^[aeiou]/.test(text) ? `an ${text}` : `a ${text}`;
}
