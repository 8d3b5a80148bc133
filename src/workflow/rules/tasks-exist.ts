import { TASK_IDS } from '../../service/index.js';
import { didYouMean } from '../did-you-mean.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule } from './rule-context.js';

/** Every step names one of the 17 task ids. */
export const tasksExist: Rule = {
  name: 'tasksExist',
  check({ workflow, report }) {
    for (const step of workflow.steps) {
      if (step.spec || step.task === '') continue;
      const hint = didYouMean(step.task, TASK_IDS);
      const list = hint === '' ? `; expected one of ${TASK_IDS.join(', ')}` : hint;
      report(new WorkflowError(WORKFLOW_CODES.task, workflow.locator.at([...step.path, 'task']), `unknown task "${step.task}"${list}`));
    }
  },
};
