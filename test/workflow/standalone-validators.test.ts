import { createRequire } from 'node:module';
import { runInThisContext } from 'node:vm';
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TASK_IDS } from '../../src/service/tasks.js';
import { buildWorkflowSchema } from '../../src/workflow/schema/build-workflow-schema.js';
import { LOADER_AJV_OPTIONS } from '../../src/workflow/schema/loader-ajv-options.js';
import { splitWorkflowSchema } from '../../src/workflow/schema/split-workflow-schema.js';
import { withValidatorFile } from '../../src/workflow/schema/standalone-validator-files.js';
import { standaloneValidatorSources } from '../../src/workflow/schema/standalone-validators.js';
import { workflowDocument } from './arbitraries.js';

/** Evaluates a generated CommonJS source (its `require` resolves from this repository). */
function load(source: string): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  const wrapped = runInThisContext(`(function (exports, require, module) {\n${source}\n})`) as (e: object, r: NodeJS.Require, m: object) => void;
  wrapped(module.exports, createRequire(import.meta.url), module);
  return module.exports;
}

/** What a validator says about a value: its verdict and its errors, as ajv reports them. */
function verdict(validate: ValidateFunction, value: unknown): unknown {
  const ok = validate(value);
  return { ok, errors: validate.errors ?? null };
}

describe('the precompiled workflow validators the build writes', () => {
  const sources = standaloneValidatorSources();
  const core = load(sources.get('core.cjs')!);
  const { core: coreSchema, withByTask } = splitWorkflowSchema(buildWorkflowSchema());
  const ajv = new Ajv(LOADER_AJV_OPTIONS);
  const compiledCore = ajv.compile(coreSchema);

  it('have a file for every task, listed in the core file', () => {
    expect(core.tasks).toEqual(TASK_IDS);
    expect([...sources.keys()].sort()).toEqual(['core.cjs', ...TASK_IDS.map(withValidatorFile)].sort());
  });

  it('give the verdicts and errors of the schema compiled at run time, for the shape and every task', () => {
    const precompiledWith = new Map(TASK_IDS.map((task) => [task, load(sources.get(withValidatorFile(task))!).validate as ValidateFunction]));
    const compiledWith = new Map(TASK_IDS.map((task) => [task, ajv.compile(withByTask.get(task)!)]));
    fc.assert(
      fc.property(workflowDocument, (document) => {
        expect(verdict(core.validate as ValidateFunction, document)).toEqual(verdict(compiledCore, document));
        const steps = (document as { steps?: Record<string, { task?: unknown; with?: unknown }> }).steps ?? {};
        for (const step of Object.values(steps)) {
          const task = typeof step?.task === 'string' ? step.task : undefined;
          if (task === undefined || !precompiledWith.has(task as never)) continue;
          expect(verdict(precompiledWith.get(task as never)!, step.with)).toEqual(verdict(compiledWith.get(task as never)!, step.with));
        }
      }),
      { numRuns: 200 },
    );
  });
});
