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

  it('reports each bad value of a field shared by several steps (the same schema path failing twice)', () => {
    // Found by the property below (seed 524904832): the two timeouts' alternatives were mixed
    // up, each hid the other's errors, and the document passed.
    const document = { version: 1, steps: { a: { task: 'video.upscale', timeout: 'soon' }, speak: { task: 'video.generate', timeout: 0 } } };
    const problems = checkSchema(document, new YamlLocator('t.yaml', ''), { leaveToRules: false }).map((e) => e.message);
    expect(problems).toEqual([
      expect.stringContaining('steps.a.timeout: expected a duration such as 30, "90s", "10m" or "2h", got "soon"'),
      expect.stringContaining('steps.speak.timeout: expected more than 0, got 0'),
    ]);
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
