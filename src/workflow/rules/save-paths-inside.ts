import { prepareScope } from '../expressions/evaluate.js';
import { contextsOf, staticValue } from '../expressions/static-value.js';
import { resolve } from 'node:path';
import { outputDirProblem, savePathProblem } from '../render/resolve-save-path.js';
import type { ContextName, Template } from '../types.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import { ItemProblems, itemLabel, problemItem } from './item-problems.js';
import type { Rule } from './rule-context.js';

const KNOWN_NOW = new Set<ContextName>(['inputs', 'item']);

/**
 * `save` paths stay inside the output folder: the literal text is checked with placeholders
 * for expressions, paths known before the run (over inputs and items) are checked for every
 * item, two items of one step may not be saved to the same path, and a step that fans out must
 * have a per-item part in its path (`item`, or an upstream result), however many items it has.
 */
export const savePathsInside: Rule = {
  name: 'savePathsInside',
  check(context) {
    const { workflow, report } = context;
    const output = staticValue(workflow.output, KNOWN_NOW, prepareScope({ inputs: context.inputs }));
    let outDir: string | undefined;
    if (output.kind === 'value') {
      const rendered = String(output.value ?? '');
      const absolute = resolve(workflow.dir, rendered.includes('\0') ? '.' : rendered);
      const problem = outputDirProblem(rendered, absolute, workflow.dir);
      if (problem !== undefined) report(new WorkflowError(WORKFLOW_CODES.savePath, workflow.locator.at(['output']), problem));
      else outDir = absolute;
    }
    // Every path known before the run, and the step that saves to it: two steps may not share one.
    const savedBy = new Map<string, string>();
    for (const step of workflow.steps) {
      const save = step.save;
      if (!save) continue;
      const at = workflow.locator.at(save.path);
      const shape = savePathProblem(withPlaceholders(save), outDir);
      if (shape) {
        report(new WorkflowError(WORKFLOW_CODES.savePath, at, shape));
        continue;
      }
      const contexts = contextsOf(save);
      const items = context.itemsOf(step.id);
      // A step that fans out saves one file per item: a path with no per-item part is an error
      // whatever the folder holds today (an empty inbox would pass, and two files fail the run).
      if (step.forEach && contexts && !contexts.has('item') && !contexts.has('steps')) {
        report(new WorkflowError(WORKFLOW_CODES.savePath, at, `every item would be saved to the same path; include \${{ item.stem }} or \${{ item.index }}`));
        continue;
      }
      if (!contexts || contexts.has('steps') || contexts.has('run')) continue;
      const problems = new ItemProblems();
      const seen = new Map<string, number>();
      const count = contexts.has('item') && items ? items.length : 1;
      for (let k = 0; k < count; k++) {
        const item = contexts.has('item') && items ? items.at(k) : undefined;
        const rendered = staticValue(save, KNOWN_NOW, prepareScope({ inputs: context.inputs, item }));
        if (rendered.kind !== 'value') continue;
        const path = String(rendered.value ?? '');
        const label = itemLabel(item ? k : undefined, item?.value);
        const problem = savePathProblem(path, outDir);
        if (problem) problems.add(`unsafe ${path}`, () => new WorkflowError(WORKFLOW_CODES.savePath, at, `${problem}: ${JSON.stringify(path)}${label}`, problemItem(step.id, item ? k : undefined)));
        const first = seen.get(path);
        if (first !== undefined) problems.add(`duplicate ${path}`, () => new WorkflowError(WORKFLOW_CODES.savePath, at, `items ${first} and ${k} would both be saved to ${JSON.stringify(path)}`));
        else seen.set(path, k);
        const other = savedBy.get(path);
        if (other !== undefined && other !== step.id) {
          problems.add(`collision ${path}`, () => new WorkflowError(WORKFLOW_CODES.savePath, at, `steps ${other} and ${step.id} would both save to ${JSON.stringify(path)}${label}; one output would overwrite the other`, problemItem(step.id, item ? k : undefined)));
        } else savedBy.set(path, step.id);
      }
      problems.flush(report);
    }
  },
};

/** The template with each expression replaced by a harmless name, to check its literal shape. */
function withPlaceholders(template: Template): string {
  return template.parts.map((part) => (typeof part === 'string' ? part : 'x')).join('');
}
