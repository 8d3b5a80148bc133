import { describe, expect, it } from 'vitest';
import { modelServesTask } from '../../../src/workflow/rules/model-serves-task.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const ocr = (model: string): string => `version: 1\nsteps:\n  r:\n    task: image.ocr\n    with: { image: a.png, model: ${model} }\n`;

describe('modelServesTask', () => {
  it('accepts a model whose inference types serve the task', async () => {
    expect((await runRule(tempDir, modelServesTask, ocr('Nanonets_Ocr_S_F16'))).errors).toEqual([]);
  });

  it('names an unknown model, the source it looked in, and the models that would do', async () => {
    expect((await runRule(tempDir, modelServesTask, ocr('Nanonets'))).errors).toEqual([
      'wf.yaml:5:34: steps.r.with.model: unknown model "Nanonets" in the built-in catalogue; models for image.ocr: Nanonets_Ocr_S_F16',
    ]);
  });

  it('refuses a model that serves another task', async () => {
    expect((await runRule(tempDir, modelServesTask, ocr('Kokoro'))).errors).toEqual([
      'wf.yaml:5:34: steps.r.with.model: model "Kokoro" does not serve image.ocr (its inference types: txt2audio); models that do: Nanonets_Ocr_S_F16',
    ]);
  });

  it('checks a model given as an input', async () => {
    const yaml = `version: 1\ninputs:\n  model: { type: string, default: Kokoro }\n${ocr('"${{ inputs.model }}"').slice('version: 1\n'.length)}`;
    expect((await runRule(tempDir, modelServesTask, yaml)).errors[0]).toMatch(/^wf\.yaml:7:34: steps\.r\.with\.model: model "Kokoro" does not serve image\.ocr/);
  });

  it('uses the model list the caller fetched', async () => {
    const models = [{ name: 'New OCR', slug: 'NewOcr', inference_types: ['img2txt'], info: { limits: {}, features: {}, defaults: {} } }];
    const result = await runRule(tempDir, modelServesTask, ocr('NewOcr'), { validate: { offline: false, fetchModels: async () => models } });
    expect(result.errors).toEqual([]);
  });
});
