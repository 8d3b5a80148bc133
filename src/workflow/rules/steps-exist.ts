import { didYouMean } from '../did-you-mean.js';
import { referencedStepId, stepReferences } from '../graph/step-references.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule } from './rule-context.js';

/** Every step id named in `needs`, `for_each` and `steps.<id>` exists; ids differ in more than case. */
export const stepsExist: Rule = {
  name: 'stepsExist',
  check({ workflow, report }) {
    const ids = workflow.steps.map((s) => s.id);
    const byLower = new Map<string, string>();
    for (const step of workflow.steps) {
      const other = byLower.get(step.id.toLowerCase());
      if (other !== undefined) {
        report(new WorkflowError(WORKFLOW_CODES.ref, workflow.locator.at(step.path, { key: true }), `step id differs from "${other}" only in case; expressions match step ids without regard to case`));
      } else byLower.set(step.id.toLowerCase(), step.id);
    }
    const unknown = (name: string): string => `unknown step "${name}"${didYouMean(name, ids)}`;
    for (const step of workflow.steps) {
      for (const need of step.needs) {
        if (!workflow.stepById.has(need.id)) report(new WorkflowError(WORKFLOW_CODES.ref, workflow.locator.at(need.path), unknown(need.id)));
      }
      if (step.forEach?.kind === 'step' && !workflow.stepById.has(step.forEach.step)) {
        report(new WorkflowError(WORKFLOW_CODES.ref, workflow.locator.at(step.forEach.path), unknown(step.forEach.step)));
      }
      for (const { reference } of stepReferences(step)) {
        const name = reference.path[0];
        const at = reference.locations[1] ?? reference.locations[0]!;
        if (name === undefined) report(new WorkflowError(WORKFLOW_CODES.ref, reference.locations[0]!, 'expected a step id after "steps", as in steps.<id>.text'));
        else if (name === null || name === '*') {
          report(new WorkflowError(WORKFLOW_CODES.ref, at, 'expected a step id after "steps", got a computed index or *; name the step so its dependency is known'));
        } else {
          const id = referencedStepId(workflow, reference);
          if (id === undefined) report(new WorkflowError(WORKFLOW_CODES.ref, at, unknown(name)));
          else if (id === step.id) report(new WorkflowError(WORKFLOW_CODES.cycle, at, `a step cannot read its own result (steps.${name})`));
        }
      }
    }
  },
};
