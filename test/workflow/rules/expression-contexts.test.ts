import { describe, expect, it } from 'vitest';
import { expressionContexts } from '../../../src/workflow/rules/expression-contexts.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const files = { 'scans/a.png': 'x' };
const workflow = (expression: string, save = '${{ item.stem }}.txt'): string => `version: 1
inputs:
  lang: { type: string, default: en }
steps:
  read:
    task: image.ocr
    for_each: { glob: "scans/*.png" }
    with: { image: "\${{ item.path }}", model: Nanonets_Ocr_S_F16 }
    save: "${save}"
  speak:
    task: audio.speech
    for_each: read
    with: { text: "${expression}", model: Kokoro }
`;

describe('expressionContexts', () => {
  it('accepts every documented property', async () => {
    const used = '${{ inputs.lang }} ${{ item.index }} ${{ item.name }} ${{ steps.read.text }} ${{ steps.read.path }} ${{ steps.read.cost }} ${{ run.id }}';
    expect((await runRule(tempDir, expressionContexts, workflow(used), { files })).errors).toEqual([]);
  });

  it('names an undeclared input, with a suggestion', async () => {
    expect((await runRule(tempDir, expressionContexts, workflow('${{ inputs.langs }}'), { files })).errors).toEqual([
      'wf.yaml:13:31: steps.speak.with.text: unknown input "langs"; declared inputs: lang; did you mean "lang"?',
    ]);
  });

  it('names an unknown item property, listing what items have', async () => {
    expect((await runRule(tempDir, expressionContexts, workflow('${{ item.stm }}'), { files })).errors).toEqual([
      'wf.yaml:13:29: steps.speak.with.text: unknown property item.stm; items have index, value, path, name, stem, ext, dir; did you mean "stem"?',
    ]);
  });

  it('accepts the fields of object items and matrix keys', async () => {
    const yaml = `version: 1\nsteps:\n  g:\n    task: image.generate\n    for_each: { matrix: { subject: [cat, dog], style: [ink] } }\n    with: { prompt: "\${{ item.subject }} in \${{ item.style }}", model: Flux1schnell }\n`;
    expect((await runRule(tempDir, expressionContexts, yaml)).errors).toEqual([]);
  });

  it('refuses item in a step that runs once', async () => {
    const yaml = 'version: 1\nsteps:\n  e:\n    task: text.embed\n    with: { input: "${{ item.path }}", model: Bge_M3_FP16 }\n';
    expect((await runRule(tempDir, expressionContexts, yaml)).errors).toEqual(['wf.yaml:5:25: steps.e.with.input: "item" is only set in a step with for_each; steps.e runs once']);
  });

  it('names an unknown result property, and ones the result kind does not offer', async () => {
    expect((await runRule(tempDir, expressionContexts, workflow('${{ steps.read.txt }}'), { files })).errors).toEqual([
      'wf.yaml:13:35: steps.speak.with.text: unknown property steps.read.txt; expected one of request_id, result_url, text, json, path, cost; did you mean "text"?',
    ]);
    expect((await runRule(tempDir, expressionContexts, workflow('${{ steps.read.json }}'), { files })).errors).toEqual([
      'wf.yaml:13:35: steps.speak.with.text: steps.read.json is not available: image.ocr yields a text result; use steps.read.text',
    ]);
  });

  it('refuses steps.<id>.path when that step saves nothing', async () => {
    const yaml = workflow('${{ steps.read.path }}').replace('    save: "${{ item.stem }}.txt"\n', '');
    expect((await runRule(tempDir, expressionContexts, yaml, { files })).errors).toEqual(['wf.yaml:12:35: steps.speak.with.text: steps.read.path is not available: steps.read has no save']);
  });

  it('names an unknown run property', async () => {
    expect((await runRule(tempDir, expressionContexts, workflow('${{ run.started }}'), { files })).errors).toEqual([
      'wf.yaml:13:28: steps.speak.with.text: unknown property run.started; expected one of id, started_at',
    ]);
  });

  it('allows only inputs in for_each paths and output', async () => {
    const yaml = 'version: 1\noutput: "out/${{ run.id }}"\nsteps:\n  r:\n    task: image.ocr\n    for_each: { glob: "${{ item.dir }}/*.png" }\n    with: { image: "${{ item.path }}", model: Nanonets_Ocr_S_F16 }\n';
    expect((await runRule(tempDir, expressionContexts, yaml)).errors).toEqual([
      'wf.yaml:2:22: output: only inputs can be used here (items and paths are listed before the run)',
      'wf.yaml:6:33: steps.r.for_each.glob: only inputs can be used here (items and paths are listed before the run)',
    ]);
  });
});
