import type { ModelInfo } from '../../service/index.js';
import type { TaskSpec } from '../../service/index.js';
import { didYouMean } from '../did-you-mean.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { Rule } from './rule-context.js';
import { stepModels } from './step-models.js';

/**
 * The chosen model exists in the model source and serves the task (its `inference_types`
 * include one of the task's). Prompt enhancement's `model_slug` names a target model and
 * only has to exist.
 */
export const modelServesTask: Rule = {
  name: 'modelServesTask',
  check(context) {
    const { workflow, models, report } = context;
    for (const step of workflow.steps) {
      const spec = step.spec;
      if (!spec?.modelField) continue;
      const at = workflow.locator.at([...step.path, 'with', spec.modelField]);
      const serving = models.models.filter((m) => serves(m, spec)).map((m) => m.slug);
      for (const [slug, k] of stepModels(context, step).slugs) {
        const where = k === undefined ? '' : ` (item ${k})`;
        const model = models.find(slug);
        if (!model) {
          const pool = spec.inferenceTypes.length > 0 ? serving : models.models.map((m) => m.slug);
          const list = pool.length > 0 && spec.inferenceTypes.length > 0 ? `; models for ${spec.id}: ${pool.join(', ')}` : '';
          report(new WorkflowError(WORKFLOW_CODES.model, at, `unknown model "${slug}" in the ${models.description}${where}${didYouMean(slug, pool, 3)}${list}`));
        } else if (spec.inferenceTypes.length > 0 && !serves(model, spec)) {
          const list = serving.length > 0 ? `; models that do: ${serving.join(', ')}` : '';
          report(new WorkflowError(WORKFLOW_CODES.model, at, `model "${slug}" does not serve ${spec.id} (its inference types: ${model.inference_types.join(', ')})${where}${list}`));
        }
      }
    }
  },
};

function serves(model: ModelInfo, task: TaskSpec): boolean {
  return model.inference_types.some((type) => task.inferenceTypes.includes(type));
}
