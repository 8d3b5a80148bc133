import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule } from './rule-context.js';

/**
 * Every for_each source can be read (files exist and parse, globs use only inputs), an empty
 * glob is a warning, and a chain (`for_each: <step>`) follows a step that fans out.
 */
export const forEachSources: Rule = {
  name: 'forEachSources',
  check({ workflow, sources, report, warn }) {
    for (const step of workflow.steps) {
      const source = step.forEach;
      if (!source) continue;
      if (source.kind === 'step') {
        const upstream = workflow.stepById.get(source.step);
        if (upstream && !upstream.forEach && upstream.id !== step.id) {
          report(new WorkflowError(WORKFLOW_CODES.forEach, workflow.locator.at(source.path), `expected a step that fans out (has for_each), got steps.${source.step}, which runs once; use needs: ${source.step} to wait for it`));
        }
        continue;
      }
      const result = sources.get(step.id);
      if (!result) continue;
      if (!result.ok) report(result.error);
      else if (result.warning) warn(result.warning);
    }
  },
};
