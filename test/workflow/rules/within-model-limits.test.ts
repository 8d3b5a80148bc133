import { describe, expect, it } from 'vitest';
import { withinModelLimits } from '../../../src/workflow/rules/within-model-limits.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const image = (extra: string, head = ''): string => `version: 1\n${head}steps:\n  g:\n    task: image.generate\n    with: { prompt: a fox, model: Flux1schnell, ${extra} }\n`;

describe('withinModelLimits', () => {
  it('accepts values within the model limits', async () => {
    expect((await runRule(tempDir, withinModelLimits, image('width: 1024, height: 512, steps: 4'))).errors).toEqual([]);
  });

  it('refuses a literal outside the model limits, naming the limit', async () => {
    expect((await runRule(tempDir, withinModelLimits, image('width: 4096'))).errors).toEqual([
      'wf.yaml:5:56: steps.g.with.width: expected at most 2048 for model Flux1schnell (info.limits.max_width), got 4096',
    ]);
  });

  it('checks a value from an input, with the input given', async () => {
    const yaml = image('steps: "${{ inputs.steps }}"', 'inputs:\n  steps: { type: integer, default: 4 }\n');
    expect((await runRule(tempDir, withinModelLimits, yaml)).errors).toEqual([]);
    expect((await runRule(tempDir, withinModelLimits, yaml, { validate: { inputs: { values: { steps: '20' } } } })).errors).toEqual([
      'wf.yaml:7:56: steps.g.with.steps: expected at most 10 for model Flux1schnell (info.limits.max_steps), got 20 (from an expression)',
    ]);
  });

  it('checks a value from each item and names every item that is out of bounds', async () => {
    const yaml = `version: 1\nsteps:\n  s:\n    task: audio.speech\n    for_each: { items: ["Hello there", "Hi", "Yo"] }\n    with: { text: "\${{ item.value }}", model: Kokoro }\n`;
    expect((await runRule(tempDir, withinModelLimits, yaml)).errors).toEqual([
      'wf.yaml:6:19: steps.s.with.text: expected at least 3 characters for model Kokoro (info.limits.min_text), got 2 (from an expression) (item 1: "Hi")',
      'wf.yaml:6:19: steps.s.with.text: expected at least 3 characters for model Kokoro (info.limits.min_text), got 2 (from an expression) (item 2: "Yo")',
    ]);
  });

  it('checks the type of a value that comes from an expression', async () => {
    const yaml = `version: 1\nsteps:\n  s:\n    task: audio.speech\n    for_each: { items: [{ t: Hello there, speed: fast }] }\n    with: { text: "\${{ item.t }}", model: Kokoro, speed: "\${{ item.speed }}" }\n`;
    expect((await runRule(tempDir, withinModelLimits, yaml)).errors).toEqual(['wf.yaml:6:58: steps.s.with.speed: expected number, got string (from an expression) (item 0)']);
  });

  it('checks a value against a list in info.limits', async () => {
    const yaml = 'version: 1\nsteps:\n  t:\n    task: audio.transcribe\n    with: { source_url: "https://youtu.be/x", model: WhisperLargeV3, include_ts: true, ts_level: word }\n';
    expect((await runRule(tempDir, withinModelLimits, yaml)).errors).toEqual([
      'wf.yaml:5:98: steps.t.with.ts_level: expected one of "segment" for model WhisperLargeV3 (info.limits.timestamp_levels), got "word"',
    ]);
  });

  it('reports an expression that fails to evaluate with the inputs given', async () => {
    expect((await runRule(tempDir, withinModelLimits, image(`width: "\${{ fromJSON('nope') }}"`))).errors).toEqual([
      'wf.yaml:5:61: steps.g.with.width: cannot evaluate "fromJSON(\'nope\')": Error parsing JSON when evaluating fromJson',
    ]);
  });
});

describe('withinModelLimits: the languages and voices a TTS model lists', () => {
  const speech = (withs: string, forEach = '') => `version: 1\nsteps:\n  s:\n    task: audio.speech\n${forEach}    with: { text: "Hello there", model: Kokoro, ${withs} }\n`;

  it('accepts a language and a voice the model lists', async () => {
    expect((await runRule(tempDir, withinModelLimits, speech('lang: en-gb, voice: bf_emma'))).errors).toEqual([]);
  });

  it('refuses a voice and a language the model does not list, before anything is sent', async () => {
    expect((await runRule(tempDir, withinModelLimits, speech('lang: de, voice: af_nicole'))).errors).toEqual([
      'wf.yaml:5:55: steps.s.with.lang: expected one of "en-us", "en-gb", "es", "fr-fr", "hi", "it", "pt-br" for model Kokoro (languages[].slug), got "de"',
      'wf.yaml:5:66: steps.s.with.voice: expected one of "af_bella", "af_sky", "af_heart", "am_adam", "am_michael", "bf_emma", "bm_george" for model Kokoro (languages[].voices[].slug), got "af_nicole"',
    ]);
  });

  it('checks a voice read from each item', async () => {
    const yaml = speech('voice: "${{ item.value }}"', '    for_each: { items: [af_sky, zz_nobody] }\n');
    expect((await runRule(tempDir, withinModelLimits, yaml)).errors).toEqual([
      'wf.yaml:6:56: steps.s.with.voice: expected one of "af_bella", "af_sky", "af_heart", "am_adam", "am_michael", "bf_emma", "bm_george" for model Kokoro (languages[].voices[].slug), got "zz_nobody" (from an expression) (item 1: "zz_nobody")',
    ]);
  });
});
