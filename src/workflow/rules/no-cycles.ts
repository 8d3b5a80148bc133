import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule } from './rule-context.js';

/** Steps do not wait for each other in a loop (through for_each, needs or references). */
export const noCycles: Rule = {
  name: 'noCycles',
  check({ workflow, analysis, report }) {
    const cycle = analysis.cycle;
    if (!cycle) return;
    // A self-reference in an expression is reported by stepsExist, at the expression.
    const selfOnlyByRef = cycle.length === 2 && (analysis.upstream.get(cycle[0]!) ?? []).some((e) => e.from === cycle[0] && e.origins.every((o) => o === 'ref'));
    if (selfOnlyByRef) return;
    const first = workflow.stepById.get(cycle[0]!)!;
    report(new WorkflowError(WORKFLOW_CODES.cycle, workflow.locator.at(first.path, { key: true }), `steps wait for each other in a cycle: ${cycle.join(' → ')}`));
  },
};
