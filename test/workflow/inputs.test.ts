import { describe, expect, it } from 'vitest';
import { readGivenInputs } from '../../src/workflow/inputs/read-given-inputs.js';
import { WorkflowInvalidError } from '../../src/workflow/workflow-error.js';
import { lines, useTempDirs, validateText, writeTree } from './helpers.js';

const tempDir = useTempDirs();
const yaml = `version: 1
inputs:
  voice: { type: choice, options: [af_bella, am_adam], default: af_bella }
  speed: { type: number, default: 1 }
  count: { type: integer }
  loud: { type: boolean, required: false }
steps:
  s:
    task: audio.speech
    with: { text: "Hello \${{ inputs.count }}", model: Kokoro, voice: "\${{ inputs.voice }}", speed: "\${{ inputs.speed }}" }
`;
const given = (values: Record<string, unknown>) => ({ validate: { inputs: { values } } });

describe('workflow inputs', () => {
  it('converts --input strings to the declared types and fills defaults', async () => {
    const result = await validateText(tempDir, yaml, given({ count: '3', speed: '1.5', loud: 'true' }));
    expect(lines(result)).toEqual([]);
    expect(result.graph?.inputs).toEqual({ voice: 'af_bella', speed: 1.5, count: 3, loud: true });
  });

  it('reports a missing required input at its declaration', async () => {
    expect(lines(await validateText(tempDir, yaml))).toEqual(['wf.yaml:5:3: inputs.count: missing a value: pass --input count=… (it has no default)']);
  });

  it('reports values of the wrong type and unknown choices', async () => {
    expect(lines(await validateText(tempDir, yaml, given({ count: '2.5', voice: 'af_bela', loud: 'yes' })))).toEqual([
      'wf.yaml:3:3: inputs.voice: expected one of "af_bella", "am_adam", got "af_bela"; did you mean "af_bella"? (given by --input)',
      'wf.yaml:5:3: inputs.count: expected an integer, got "2.5" (given by --input)',
      'wf.yaml:6:3: inputs.loud: expected true or false, got "yes" (given by --input)',
    ]);
  });

  it('reports an undeclared input with a suggestion', async () => {
    expect(lines(await validateText(tempDir, yaml, given({ count: '1', sped: '2' })))).toEqual([
      'wf.yaml:2:1: inputs.sped: unknown input (given by --input sped="2"); declared inputs: voice, speed, count, loud; did you mean "speed"?',
    ]);
  });

  it('reports a default of the wrong type', async () => {
    const broken = yaml.replace('speed: { type: number, default: 1 }', 'speed: { type: number, default: quick }');
    expect(lines(await validateText(tempDir, broken, given({ count: '1' })))).toEqual(['wf.yaml:4:35: inputs.speed.default: expected a number, got "quick"']);
  });

  it('reads an inputs file, with --input taking precedence', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'in.yaml': 'count: 4\nspeed: 2\n' });
    const inputs = await readGivenInputs({ file: 'in.yaml', pairs: ['speed=0.5'], cwd: dir });
    expect(inputs).toEqual({ values: { count: 4, speed: '0.5' }, origins: { count: '--inputs in.yaml', speed: '--input' } });
  });

  it('refuses an inputs file that is not a mapping, at its position', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'in.yaml': '- 1\n' });
    const error = await readGivenInputs({ file: 'in.yaml', cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowInvalidError);
    expect((error as WorkflowInvalidError).message).toBe('in.yaml:1:1: workflow: expected a mapping of input names to values');
  });

  it('refuses a malformed --input', async () => {
    await expect(readGivenInputs({ pairs: ['novalue'] })).rejects.toMatchObject({ code: 'E_USAGE_INPUT', message: '--input expects key=value, got "novalue"' });
  });
});
