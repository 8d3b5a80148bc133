import { resolve } from 'node:path';
import type { FieldSpec } from '../../service/index.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import { ItemProblems, itemLabel, problemItem } from './item-problems.js';
import type { Rule } from './rule-context.js';
import { taskSteps } from './task-steps.js';
import { FileSniffer } from './sniff-file.js';
import { knownFieldValues } from './static-field-values.js';

interface FileCheck {
  readonly path: string;
  readonly field: FieldSpec;
  readonly at: WorkflowError['location'];
  readonly label: string;
  readonly step: string;
  /** The items whose value is this path (several items may name one file). */
  readonly items: number[];
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
    const queued = new Map<string, FileCheck>();
    for (const step of taskSteps(workflow)) {
      for (const field of step.spec.fields) {
        if (!field.file || !step.with.has(field.name)) continue;
        const value = step.with.get(field.name)!;
        const at = workflow.locator.at(value.path);
        for (const known of knownFieldValues(context, step, field.name)) {
          if (known.value.kind !== 'value') continue;
          // The item is named by index only when its value is the path itself (it is printed already).
          const label = itemLabel(known.k, known.itemValue === known.value.value ? undefined : known.itemValue);
          const paths = Array.isArray(known.value.value) ? known.value.value : [known.value.value];
          for (const path of paths) {
            if (path === null || path === '') continue;
            if (typeof path !== 'string') {
              const got = Array.isArray(path) ? 'a list' : typeof path === 'object' ? 'an object' : `a ${typeof path} (${JSON.stringify(path)})`;
              problems.add(`${step.id} ${field.name} type ${known.k ?? ''}`, () => new WorkflowError(WORKFLOW_CODES.inputFile, at, `expected a file path (a string), got ${got}${label}`, problemItem(step.id, known.k)));
              continue;
            }
            if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
              const urlField = step.spec.fields.find((f) => f.url && !f.https)?.name;
              const hint = urlField ? `; ${step.spec.id} takes URLs in ${urlField}` : '';
              problems.add(`${step.id} ${field.name} url`, () => new WorkflowError(WORKFLOW_CODES.inputFile, at, `expected a file path, got a URL${hint}${label}`, problemItem(step.id, known.k)));
              continue;
            }
            const key = `${step.id}\0${field.name}\0${path}`;
            const queuedCheck = queued.get(key);
            if (queuedCheck !== undefined) {
              if (known.k !== undefined) queuedCheck.items.push(known.k);
              continue;
            }
            const check: FileCheck = { path, field, at, label, step: step.id, items: known.k === undefined ? [] : [known.k] };
            queued.set(key, check);
            checks.push(check);
          }
        }
      }
    }
    const sniffer = new FileSniffer();
    for (const [index, check] of checks.entries()) {
      const problem = await sniffer.problem(resolve(workflow.dir, check.path), check.field.file!);
      if (problem !== undefined) {
        const reason = `${check.path}: ${problem}`;
        if (check.items.length === 0) problems.add(`${check.at.path} ${reason}`, () => new WorkflowError(WORKFLOW_CODES.inputFile, check.at, `${reason}${check.label}`));
        // Every item that names the file is left out with it (`--keep-going`), each with its own line.
        for (const [n, k] of check.items.entries()) {
          problems.add(`${check.at.path} ${reason} ${k}`, () => new WorkflowError(WORKFLOW_CODES.inputFile, check.at, `${reason}${n === 0 ? check.label : ` (item ${k})`}`, problemItem(check.step, k)));
        }
      }
      // Let signals and timers run during a long check.
      if (index % 1000 === 999) await new Promise((done) => setImmediate(done));
    }
    problems.flush(report);
  },
};
