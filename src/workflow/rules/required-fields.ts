import { fillDefaults } from '../render/fill-defaults.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule } from './rule-context.js';
import { taskSteps } from './task-steps.js';
import { stepModels } from './step-models.js';

/**
 * Required fields are present, or filled from the chosen model's `info.defaults` or the
 * field's default (recorded in `fills` so the plan can say so).
 */
export const requiredFields: Rule = {
  name: 'requiredFields',
  check(context) {
    const { workflow, report } = context;
    for (const step of taskSteps(workflow)) {
      const models = stepModels(context, step);
      const slugs = [...models.slugs.keys()];
      const candidates = slugs.length > 0 ? slugs.map((slug) => context.models.find(slug)) : [undefined];
      const modelKnown = slugs.length > 0 && candidates.every((m) => m !== undefined);
      const reported = new Set<string>();
      for (const model of candidates) {
        const { filled, missing } = fillDefaults(step.spec, (name) => step.with.has(name), model);
        // With one model the plan can say what each filled field will be; with a model per item
        // the values differ, and each job is filled when it is rendered.
        if (candidates.length === 1) for (const fill of filled) context.fills.push({ step: step.id, ...fill });
        for (const field of missing) {
          // Without a known model its defaults are unknown: the model rules report that instead.
          if (field.modelDefault !== undefined && !modelKnown && field.name !== step.spec.modelField) continue;
          if (reported.has(field.name)) continue;
          reported.add(field.name);
          const by = model && field.modelDefault ? ` (model ${model.slug} has no info.defaults.${field.modelDefault})` : '';
          report(new WorkflowError(WORKFLOW_CODES.required, workflow.locator.at([...step.path, 'with'], { key: true }), `missing required field "${field.name}" (${field.type}) for ${step.spec.id}${by}`));
        }
      }
    }
  },
};
