import { describe, expect, it } from 'vitest';
import { resultKindsFit } from '../../../src/workflow/rules/result-kinds-fit.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const gen = '  gen:\n    task: image.generate\n    with: { prompt: a fox, model: Flux1schnell }\n';
const transcribe = '  t:\n    task: audio.transcribe\n    for_each: { items: ["https://youtu.be/a", "https://youtu.be/b"] }\n    with: { source_url: "${{ item.value }}", model: WhisperLargeV3, include_ts: false }\n';

describe('resultKindsFit', () => {
  it('passes a result file of an accepted kind and a text into a text field', async () => {
    const yaml = `version: 1\nsteps:\n${gen}  up:\n    task: image.upscale\n    with: { image: "\${{ steps.gen.result_url }}", model: RealESRGAN_x4 }\n${transcribe}  s:\n    task: audio.speech\n    for_each: t\n    with: { text: "\${{ steps.t.text }}", model: Kokoro }\n`;
    expect((await runRule(tempDir, resultKindsFit, yaml)).errors).toEqual([]);
  });

  it('refuses an image into an audio field', async () => {
    const yaml = `version: 1\nsteps:\n${gen}  sync:\n    task: video.audio-sync\n    with: { prompt: x, audio: "\${{ steps.gen.result_url }}", model: Ltx2_3_22B_Dist_INT8 }\n`;
    expect((await runRule(tempDir, resultKindsFit, yaml)).errors).toEqual(['wf.yaml:8:36: steps.sync.with.audio: expected an audio file, got an image result from steps.gen (image.generate)']);
  });

  it('refuses text into a file field, and a file URL into a text field', async () => {
    const yaml = `version: 1\nsteps:\n${transcribe}  up:\n    task: image.upscale\n    for_each: t\n    with: { image: "\${{ steps.t.text }}", model: RealESRGAN_x4 }\n  s:\n    task: audio.speech\n    for_each: t\n    with: { text: "\${{ steps.t.result_url }}", model: Kokoro }\n`;
    expect((await runRule(tempDir, resultKindsFit, yaml)).errors).toEqual([
      'wf.yaml:10:25: steps.up.with.image: expected an image file, got steps.t.text; pass steps.t.result_url or steps.t.path to send the result file',
      'wf.yaml:14:24: steps.s.with.text: expected text, got the result_url of steps.t; use steps.t.text to pass its text',
    ]);
  });

  it('refuses a gather into a single-text field but accepts it where a list fits', async () => {
    const yaml = `version: 1\nsteps:\n${transcribe}  s:\n    task: audio.speech\n    with: { text: "\${{ steps.t.text }}", model: Kokoro }\n  e:\n    task: text.embed\n    with: { input: "\${{ steps.t.text }}", model: Bge_M3_FP16 }\n`;
    expect((await runRule(tempDir, resultKindsFit, yaml)).errors).toEqual([
      "wf.yaml:9:24: steps.s.with.text: expected one text, got a list: steps.t fans out and this step gathers it; use join(steps.t.text, ' ') or fan out with for_each",
    ]);
  });
});
