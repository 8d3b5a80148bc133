import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TASK_IDS } from '../../src/service/tasks.js';
import { buildWorkflowSchema } from '../../src/workflow/schema/build-workflow-schema.js';
import { checkSchema } from '../../src/workflow/schema/check-schema.js';
import { splitWorkflowSchema } from '../../src/workflow/schema/split-workflow-schema.js';
import { YamlLocator } from '../../src/workflow/yaml/yaml-locator.js';
import { workflowDocument } from './arbitraries.js';

describe('the schema the loader compiles in pieces', () => {
  it('has one with-schema per task and no per-task rules left in the core', () => {
    const { core, withByTask } = splitWorkflowSchema(buildWorkflowSchema());
    expect([...withByTask.keys()]).toEqual(TASK_IDS);
    expect(JSON.stringify(core)).not.toContain('"with.');
  });

  it('accepts and refuses exactly what the published schema does', () => {
    const full = new Ajv({ allErrors: true, allowUnionTypes: true, strict: false }).compile(buildWorkflowSchema());
    const locator = new YamlLocator('t.yaml', '');
    fc.assert(
      fc.property(workflowDocument, (document) => {
        const published = full(document);
        const loader = checkSchema(document, locator, { leaveToRules: false }).length === 0;
        return published === loader;
      }),
      { numRuns: 200 },
    );
    // ~5 s alone on 2 cores; the fast project's 30 s timed it out under a loaded CI machine.
  }, 120_000);
});
