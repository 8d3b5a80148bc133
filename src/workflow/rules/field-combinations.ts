import type { StepDef } from '../types.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import { ItemProblems, itemLabel, problemItem } from './item-problems.js';
import type { RuleContext, Rule } from './rule-context.js';
import { taskSteps } from './task-steps.js';
import { knownFieldValues } from './static-field-values.js';

type Presence = 'yes' | 'no' | 'maybe';

/** Whether a written field ends up in the request: once, or per item (a field rendering to null is left out). */
interface FieldPresence {
  readonly name: string;
  readonly shared?: Presence;
  readonly perItem?: Presence[];
}

/**
 * Fields that go together do: exactly one of each group (`source_url` / `source_file`), and a
 * field that needs another (`webhook_secret` needs `webhook_url`) has it. When several fields
 * of a group are written, each item must end up with exactly one of them.
 */
export const fieldCombinations: Rule = {
  name: 'fieldCombinations',
  check(context) {
    const { workflow, report } = context;
    for (const step of taskSteps(workflow)) {
      const at = workflow.locator.at([...step.path, 'with'], { key: true });
      const problems = new ItemProblems();
      for (const group of step.spec.exactlyOneOf) {
        const written = group.filter((name) => step.with.has(name));
        const expected = `expected exactly one of ${group.join(', ')}`;
        if (written.length === 0) report(new WorkflowError(WORKFLOW_CODES.required, at, `${expected}, got none`));
        // One written field is checked too: an item that renders it empty or null sends none (the service answers 422).
        if (written.length === 0) continue;
        const presences = written.map((name) => presenceOf(context, step, name));
        const count = Math.max(1, ...presences.map((p) => p.perItem?.length ?? 1));
        const items = context.itemsOf(step.id);
        for (let k = 0; k < count; k++) {
          const states = presences.map((p) => ({ name: p.name, state: p.perItem?.[k] ?? p.shared ?? 'maybe' }));
          const yes = states.filter((s) => s.state === 'yes').map((s) => s.name);
          const perItem = count > 1 && items !== undefined;
          const label = perItem ? itemLabel(k, items.at(k).value) : '';
          const item = problemItem(step.id, perItem ? k : undefined);
          if (yes.length > 1) problems.add('many', () => new WorkflowError(WORKFLOW_CODES.required, at, `${expected}, got ${yes.join(' and ')}${label}`, item));
          else if (states.every((s) => s.state === 'no')) {
            const why = written.length === 1 ? `${written[0]} is empty or null` : 'each is empty or null';
            problems.add('none', () => new WorkflowError(WORKFLOW_CODES.required, at, `${expected}, got none (${why})${label}`, item));
          }
        }
      }
      for (const field of step.spec.fields) {
        if (field.requires && step.with.has(field.name) && !step.with.has(field.requires)) {
          const where = workflow.locator.at([...step.path, 'with', field.name], { key: true });
          report(new WorkflowError(WORKFLOW_CODES.required, where, `"${field.name}" needs "${field.requires}", which is missing`));
        }
      }
      problems.flush(report);
    }
  },
};

function presenceOf(context: RuleContext, step: StepDef, name: string): FieldPresence {
  let shared: Presence | undefined;
  let perItem: Presence[] | undefined;
  for (const known of knownFieldValues(context, step, name)) {
    const state: Presence = known.value.kind !== 'value' ? 'maybe' : known.value.value === null || known.value.value === '' ? 'no' : 'yes';
    if (known.k === undefined) shared = state;
    else (perItem ??= [])[known.k] = state;
  }
  return { name, ...(shared === undefined ? {} : { shared }), ...(perItem === undefined ? {} : { perItem }) };
}
