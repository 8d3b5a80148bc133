import { describe, expect, it } from 'vitest';
import { expressionsParse } from '../../../src/workflow/rules/expressions-parse.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const embed = (input: string, extra = ''): string => `version: 1\nsteps:\n  e:\n    task: text.embed\n${extra}    with:\n      input: ${input}\n      model: Bge_M3_FP16\n`;

describe('expressionsParse', () => {
  it('accepts functions, operators and literals', async () => {
    expect((await runRule(tempDir, expressionsParse, embed(`"\${{ format('{0}-{1}', 'a', 1 == 1 && !false) }}"`))).errors).toEqual([]);
  });

  it('points at an unknown context, with a suggestion', async () => {
    expect((await runRule(tempDir, expressionsParse, embed('"x ${{ input.name }}"'))).errors).toEqual([
      'wf.yaml:6:21: steps.e.with.input: unknown context "input"; expected one of inputs, item, steps, run; did you mean "inputs"?',
    ]);
  });

  it('points at an unknown function', async () => {
    expect((await runRule(tempDir, expressionsParse, embed('"${{ hashFiles(\'x\') }}"'))).errors).toEqual([
      'wf.yaml:6:19: steps.e.with.input: unknown function "hashFiles"; expected one of contains, startsWith, endsWith, format, join, toJSON, fromJSON, case',
    ]);
  });

  it('points at a syntax error inside the expression', async () => {
    expect((await runRule(tempDir, expressionsParse, embed('"${{ 1 == }}"'))).errors).toEqual(['wf.yaml:6:21: steps.e.with.input: unexpected end of expression after "=="']);
    expect((await runRule(tempDir, expressionsParse, embed('"${{ 1 $ 2 }}"'))).errors).toEqual(['wf.yaml:6:21: steps.e.with.input: unexpected symbol "$"']);
  });

  it('reports an unclosed expression (a }} inside a quoted string does not close it) and an empty one', async () => {
    expect((await runRule(tempDir, expressionsParse, embed('"${{ \'}} }}"'))).errors).toEqual(['wf.yaml:6:15: steps.e.with.input: expected "}}" to close "${{"']);
    expect((await runRule(tempDir, expressionsParse, embed('"${{ inputs.x"'))).errors).toEqual(['wf.yaml:6:15: steps.e.with.input: expected "}}" to close "${{"']);
    expect((await runRule(tempDir, expressionsParse, embed('"${{ }}"'))).errors).toEqual(['wf.yaml:6:18: steps.e.with.input: expected an expression inside "${{ }}", got nothing']);
  });

  it('checks if, save, for_each paths and output too', async () => {
    const yaml = `version: 1\noutput: "\${{ 1 = 2 }}"\nsteps:\n  e:\n    task: text.embed\n    if: "\${{ true }} and b"\n    save: "\${{ x. }}"\n    with: { input: x, model: Bge_M3_FP16 }\n`;
    expect((await runRule(tempDir, expressionsParse, yaml)).errors).toEqual([
      'wf.yaml:2:16: output: unexpected symbol "="',
      'wf.yaml:6:9: steps.e.if: expected one expression, got text around "${{ }}" (which would always be true); write the whole condition inside one "${{ }}" or without it',
      'wf.yaml:7:16: steps.e.save: unknown context "x"; expected one of inputs, item, steps, run',
    ]);
  });

  it('accepts an if written without braces, and reports its errors at their column', async () => {
    expect((await runRule(tempDir, expressionsParse, embed('x', '    if: inputs.a == \n'))).errors).toEqual(['wf.yaml:5:18: steps.e.if: unexpected end of expression after "=="']);
  });
});
