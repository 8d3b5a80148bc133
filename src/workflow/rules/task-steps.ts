/** The steps a rule about task fields looks at: those whose `task` names a task of the catalogue. */
import type { TaskSpec } from '../../service/index.js';
import type { StepDef, Workflow } from '../types.js';

/** A step whose task is known. */
export type TaskStep = StepDef & { readonly spec: TaskSpec };

/** The steps of `workflow` whose task is known (an unknown task is the `task` rule's to report). */
export function taskSteps(workflow: Workflow): TaskStep[] {
  return workflow.steps.filter((step): step is TaskStep => step.spec !== undefined);
}
