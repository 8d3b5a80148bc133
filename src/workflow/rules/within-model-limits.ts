import { checkFieldValue, checkModelLimits, coerceFieldValue } from '../render/check-field-value.js';
import { WORKFLOW_CODES, type WorkflowCode, WorkflowError } from '../workflow-error.js';
import { ItemProblems, itemLabel, problemItem } from './item-problems.js';
import type { Rule } from './rule-context.js';
import { taskSteps } from './task-steps.js';
import { knownFieldValues } from './static-field-values.js';
import { stepModels } from './step-models.js';

/**
 * Values known before the run are within the field's rules and the chosen model's
 * `info.limits`: literals (their type and range are the schema's), expressions over inputs,
 * and expressions over items (checked for each item). Nothing outside is ever sent.
 */
export const withinModelLimits: Rule = {
  name: 'withinModelLimits',
  check(context) {
    const { workflow, report } = context;
    for (const step of taskSteps(workflow)) {
      const slugs = [...stepModels(context, step).slugs.keys()];
      // A per-item model is checked against each item's own model only when there is one model.
      const model = slugs.length === 1 ? context.models.find(slugs[0]!) : undefined;
      const problems = new ItemProblems();
      for (const field of step.spec.fields) {
        const value = step.with.get(field.name);
        if (!value || field.name === step.spec.modelField) continue;
        for (const known of knownFieldValues(context, step, field.name)) {
          if (known.value.kind === 'error') {
            const failed = known.value.error;
            problems.add(`${field.name} eval`, known.k === undefined ? failed : () => new WorkflowError(failed.code as WorkflowCode, failed.location, failed.reason, problemItem(step.id, known.k)));
            continue;
          }
          if (known.value.kind !== 'value' || known.value.value === null) continue;
          const coerced = coerceFieldValue(field, known.value.value);
          const own = checkFieldValue(field, coerced);
          // A literal's own type and range are the schema's to report; the model's limits are checked only on a value that fits the field.
          if ((own !== undefined || coerced !== known.value.value) && value.kind === 'literal') continue;
          const reason = own ?? (model ? checkModelLimits(field, coerced, model) : undefined);
          if (reason === undefined) continue;
          const from = value.kind === 'literal' ? '' : ' (from an expression)';
          const at = workflow.locator.at(value.path);
          problems.add(`${field.name} ${own ? 'own' : 'limit'}`, () => new WorkflowError(WORKFLOW_CODES.limit, at, `${reason}${from}${itemLabel(known.k, known.itemValue)}`, problemItem(step.id, known.k)));
        }
      }
      problems.flush(report);
    }
  },
};
