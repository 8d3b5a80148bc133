import { describe, expect, it } from 'vitest';
import { fieldsKnown } from '../../../src/workflow/rules/fields-known.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const speak = (extra: string): string => `version: 1\nsteps:\n  speak:\n    task: audio.speech\n    with:\n      text: Hello there.\n      model: Kokoro\n      ${extra}\n`;

describe('fieldsKnown', () => {
  it('suggests a near miss', async () => {
    expect((await runRule(tempDir, fieldsKnown, speak('vocie: af_bella'))).errors).toEqual([
      'wf.yaml:8:7: steps.speak.with.vocie: unknown field "vocie" for audio.speech; did you mean "voice"?',
    ]);
  });

  it('lists the fields when nothing is close', async () => {
    expect((await runRule(tempDir, fieldsKnown, speak('loudness: 3'))).errors).toEqual([
      'wf.yaml:8:7: steps.speak.with.loudness: unknown field "loudness" for audio.speech; expected one of text, model, lang, speed, format, sample_rate, mode, voice, ref_audio, ref_text, instruct, webhook_url, webhook_secret',
    ]);
  });

  it('explains a field only the price endpoint takes', async () => {
    const yaml = 'version: 1\nsteps:\n  t:\n    task: audio.transcribe\n    with: { duration_seconds: 30, model: WhisperLargeV3, include_ts: false }\n';
    expect((await runRule(tempDir, fieldsKnown, yaml)).errors).toEqual([
      'wf.yaml:5:13: steps.t.with.duration_seconds: "duration_seconds" is only taken by the price endpoint of audio.transcribe; a job needs source_url or source_file',
    ]);
  });
});
