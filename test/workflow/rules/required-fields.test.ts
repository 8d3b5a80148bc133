import { describe, expect, it } from 'vitest';
import type { RuleContext } from '../../../src/workflow/rules/rule-context.js';
import { requiredFields } from '../../../src/workflow/rules/required-fields.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();

describe('requiredFields', () => {
  it('fills required fields from the model defaults and the field defaults, and records them', async () => {
    const fills: RuleContext['fills'] = [];
    const rule = { name: 'spy', check: (context: RuleContext) => requiredFields.check({ ...context, fills }) };
    const yaml = 'version: 1\nsteps:\n  compose:\n    task: audio.music\n    with: { caption: calm piano, model: AceStep_1_5_Turbo, duration: 30 }\n';
    expect((await runRule(tempDir, rule, yaml)).errors).toEqual([]);
    expect(fills.map((f) => `${f.field}=${JSON.stringify(f.value)} (${f.from})`)).toEqual([
      'lyrics="[Instrumental]" (field default)',
      'inference_steps=8 (model AceStep_1_5_Turbo info.defaults.steps)',
      'guidance_scale=1 (model AceStep_1_5_Turbo info.defaults.guidance)',
      'seed=-1 (field default)',
      'format="mp3" (model AceStep_1_5_Turbo info.defaults.format)',
    ]);
  });

  it('reports a required field nothing can fill', async () => {
    const yaml = 'version: 1\nsteps:\n  t:\n    task: audio.transcribe\n    with: { source_url: "https://youtu.be/x", model: WhisperLargeV3 }\n';
    expect((await runRule(tempDir, requiredFields, yaml)).errors).toEqual(['wf.yaml:5:5: steps.t.with: missing required field "include_ts" (boolean) for audio.transcribe']);
  });

  it('reports a missing model once, without a cascade of fields its defaults would fill', async () => {
    const yaml = 'version: 1\nsteps:\n  s:\n    task: audio.speech\n    with: { text: Hello there }\n';
    expect((await runRule(tempDir, requiredFields, yaml)).errors).toEqual(['wf.yaml:5:5: steps.s.with: missing required field "model" (string) for audio.speech']);
  });

  it('says when the chosen model has no default for a required field', async () => {
    const yaml = 'version: 1\nsteps:\n  v:\n    task: video.generate\n    with: { prompt: a cat, model: Flux1schnell }\n';
    expect((await runRule(tempDir, requiredFields, yaml)).errors).toEqual([
      'wf.yaml:5:5: steps.v.with: missing required field "frames" (integer) for video.generate (model Flux1schnell has no info.defaults.frames)',
      'wf.yaml:5:5: steps.v.with: missing required field "fps" (integer) for video.generate (model Flux1schnell has no info.defaults.fps)',
    ]);
  });
});
