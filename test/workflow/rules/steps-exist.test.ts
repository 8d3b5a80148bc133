import { describe, expect, it } from 'vitest';
import { stepsExist } from '../../../src/workflow/rules/steps-exist.js';
import { runRule, TRANSCRIBE_URL, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const base = `version: 1\nsteps:\n  transcribe:\n    task: audio.transcribe\n    with: ${TRANSCRIBE_URL}\n`;

describe('stepsExist', () => {
  it('passes when every referenced step exists', async () => {
    const yaml = `${base}  embed:\n    task: text.embed\n    needs: transcribe\n    with: { input: "\${{ steps.transcribe.text }}", model: Bge_M3_FP16 }\n`;
    expect((await runRule(tempDir, stepsExist, yaml)).errors).toEqual([]);
  });

  it('names an unknown step in needs, with a suggestion', async () => {
    const yaml = `${base}  embed:\n    task: text.embed\n    needs: [transcrib]\n    with: { input: x, model: Bge_M3_FP16 }\n`;
    expect((await runRule(tempDir, stepsExist, yaml)).errors).toEqual(['wf.yaml:8:13: steps.embed.needs[0]: unknown step "transcrib"; did you mean "transcribe"?']);
  });

  it('names an unknown step in for_each', async () => {
    const yaml = `${base}  speak:\n    task: audio.speech\n    for_each: nothing\n    with: { text: x, model: Kokoro }\n`;
    expect((await runRule(tempDir, stepsExist, yaml)).errors).toEqual(['wf.yaml:8:15: steps.speak.for_each: unknown step "nothing"']);
  });

  it('names an unknown step in an expression, at the step id', async () => {
    const yaml = `${base}  embed:\n    task: text.embed\n    with: { input: "\${{ steps.transcrbe.text }}", model: Bge_M3_FP16 }\n`;
    expect((await runRule(tempDir, stepsExist, yaml)).errors).toEqual(['wf.yaml:8:31: steps.embed.with.input: unknown step "transcrbe"; did you mean "transcribe"?']);
  });

  it('refuses a computed step id and a self-reference', async () => {
    const yaml = `${base}  embed:\n    task: text.embed\n    with: { input: "\${{ steps[inputs.x].text }}", model: "\${{ steps.embed.text }}" }\n`;
    expect((await runRule(tempDir, stepsExist, yaml)).errors).toEqual([
      'wf.yaml:8:25: steps.embed.with.input: expected a step id after "steps", got a computed index or *; name the step so its dependency is known',
      'wf.yaml:8:69: steps.embed.with.model: a step cannot read its own result (steps.embed)',
    ]);
  });

  it('refuses step ids that differ only in case', async () => {
    const yaml = `${base}  Transcribe:\n    task: audio.transcribe\n    with: ${TRANSCRIBE_URL}\n`;
    expect((await runRule(tempDir, stepsExist, yaml)).errors).toEqual([
      'wf.yaml:6:3: steps.Transcribe: step id differs from "transcribe" only in case; expressions match step ids without regard to case',
    ]);
  });
});
