import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { renderTaskReference, TASK_REFERENCE_BEGIN, TASK_REFERENCE_END } from '../../src/workflow/docs/render-task-reference.js';
import { buildWorkflowSchema } from '../../src/workflow/schema/build-workflow-schema.js';

// Generated artefacts are committed and kept in sync here. To regenerate them after a catalogue
// change: DEFLOW_UPDATE_GENERATED=1 npx vitest run test/workflow/generated-files.test.ts
const root = join(import.meta.dirname, '..', '..');
const update = process.env.DEFLOW_UPDATE_GENERATED === '1';

describe('generated files', () => {
  it('schemas/workflow.schema.json is the schema the loader compiles', () => {
    const file = join(root, 'schemas', 'workflow.schema.json');
    const generated = `${JSON.stringify(buildWorkflowSchema(), null, 2)}\n`;
    if (update) writeFileSync(file, generated);
    expect(readFileSync(file, 'utf8')).toBe(generated);
  });

  it('the schema compiles in ajv strict mode (the loader skips strict checks for speed)', () => {
    expect(() => new Ajv({ strict: true, allErrors: true, allowUnionTypes: true }).compile(buildWorkflowSchema())).not.toThrow();
  });

  it('docs/workflow-language.md carries the task reference generated from the catalogue', () => {
    const file = join(root, 'docs', 'workflow-language.md');
    const text = readFileSync(file, 'utf8');
    const begin = text.indexOf(TASK_REFERENCE_BEGIN);
    const end = text.indexOf(TASK_REFERENCE_END);
    expect(begin).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(begin);
    const section = `${TASK_REFERENCE_BEGIN}\n${renderTaskReference()}\n${TASK_REFERENCE_END}`;
    const current = text.slice(begin, end + TASK_REFERENCE_END.length);
    if (update) writeFileSync(file, text.replace(current, section));
    expect(readFileSync(file, 'utf8').slice(begin, begin + section.length)).toBe(section);
  });
});
