import { didYouMean } from '../did-you-mean.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule } from './rule-context.js';
import { taskSteps } from './task-steps.js';

/** Every `with` key is a request field of the step's task (with a "did you mean" for near misses). */
export const fieldsKnown: Rule = {
  name: 'fieldsKnown',
  check({ workflow, report }) {
    for (const step of taskSteps(workflow)) {
      const names = step.spec.fields.map((f) => f.name);
      for (const name of step.with.keys()) {
        if (names.includes(name)) continue;
        const at = workflow.locator.at([...step.path, 'with', name], { key: true });
        const priceOnly = step.spec.priceFields.some((f) => f.name === name);
        const reason = priceOnly
          ? `"${name}" is only taken by the price endpoint of ${step.spec.id}; a job needs ${listRequired(step.spec.exactlyOneOf) || 'the real input'}`
          : `unknown field "${name}" for ${step.spec.id}${didYouMean(name, names) || `; expected one of ${names.join(', ')}`}`;
        report(new WorkflowError(WORKFLOW_CODES.field, at, reason));
      }
    }
  },
};

function listRequired(groups: readonly (readonly string[])[]): string {
  return groups.map((g) => g.join(' or ')).join(', ');
}
