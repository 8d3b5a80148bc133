import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule } from './rule-context.js';

/** `gather: partial` is set only on a step that gathers a fanned-out step (otherwise it would mean nothing). */
export const gatherMode: Rule = {
  name: 'gatherMode',
  check(context) {
    const { workflow, analysis, report } = context;
    for (const step of workflow.steps) {
      if (step.gather !== 'partial') continue;
      if (analysis.upstream.get(step.id)?.some((edge) => edge.kind === 'all')) continue;
      report(
        new WorkflowError(
          WORKFLOW_CODES.schema,
          workflow.locator.at([...step.path, 'gather']),
          `expected gather: partial only on a step that gathers a fanned-out step (reads steps.<id> of a step with for_each without fanning out over it); steps.${step.id} gathers none`,
        ),
      );
    }
  },
};
