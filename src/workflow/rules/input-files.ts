import { resolve } from 'node:path';
import type { FieldSpec } from '../../service/index.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import { ItemProblems, itemLabel } from './item-problems.js';
import type { Rule } from './rule-context.js';
import { FileSniffer } from './sniff-file.js';
import { knownFieldValues } from './static-field-values.js';

interface FileCheck {
  readonly path: string;
  readonly field: FieldSpec;
  readonly at: WorkflowError['location'];
  readonly label: string;
}

/**
 * Every input file known before the run (a literal path, or one from inputs or items) exists
 * and has a format and size its field accepts, by content. A URL in a file field is refused
 * with the URL field to use instead.
 */
export const inputFiles: Rule = {
  name: 'inputFiles',
  async check(context) {
    const { workflow, report } = context;
    const problems = new ItemProblems();
    const checks: FileCheck[] = [];
    const queued = new Set<string>();
    for (const step of workflow.steps) {
      if (!step.spec) continue;
      for (const field of step.spec.fields) {
        if (!field.file || !step.with.has(field.name)) continue;
        const value = step.with.get(field.name)!;
        const at = workflow.locator.at(value.path);
        for (const known of knownFieldValues(context, step, field.name)) {
          if (known.value.kind !== 'value') continue;
          // The item is named by index only when its value is the path itself (it is printed already).
          const label = itemLabel(known.k, known.item?.value === known.value.value ? undefined : known.item?.value);
          const paths = Array.isArray(known.value.value) ? known.value.value : [known.value.value];
          for (const path of paths) {
            if (path === null || typeof path !== 'string' || path === '') continue;
            if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
              const urlField = step.spec.fields.find((f) => f.url && !f.https)?.name;
              const hint = urlField ? `; ${step.spec.id} takes URLs in ${urlField}` : '';
              problems.add(`${step.id} ${field.name} url`, () => new WorkflowError(WORKFLOW_CODES.inputFile, at, `expected a file path, got a URL${hint}${label}`));
              continue;
            }
            const key = `${step.id}\0${field.name}\0${path}`;
            if (queued.has(key)) continue;
            queued.add(key);
            checks.push({ path, field, at, label });
          }
        }
      }
    }
    const sniffer = new FileSniffer();
    for (const [index, check] of checks.entries()) {
      const problem = await sniffer.problem(resolve(workflow.dir, check.path), check.field.file!);
      if (problem !== undefined) problems.add(`${check.at.path} ${problem.split(',')[0]}`, () => new WorkflowError(WORKFLOW_CODES.inputFile, check.at, `${check.path}: ${problem}${check.label}`));
      // Let signals and timers run during a long check.
      if (index % 1000 === 999) await new Promise((done) => setImmediate(done));
    }
    problems.flush(report);
  },
};
