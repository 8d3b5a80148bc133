import { describe, expect, it } from 'vitest';
import { TRANSCRIBE_URL, lines, useTempDirs, validateText } from './helpers.js';

const tempDir = useTempDirs();

const speech = (field: string): string => `version: 1
steps:
  speak:
    task: audio.speech
    with:
      text: Hello there, listener.
      model: Kokoro
      ${field}
`;

describe('schema problems come back at their position with what was expected and found', () => {
  it('a wrong type', async () => {
    const result = await validateText(tempDir, speech('voice: 5'));
    expect(lines(result)).toEqual(['wf.yaml:8:14: steps.speak.with.voice: expected string, got number']);
    expect(result.errors[0]?.code).toBe('E_WORKFLOW_SCHEMA');
  });

  it('a value outside the field range', async () => {
    expect(lines(await validateText(tempDir, speech('speed: 9')))).toEqual(['wf.yaml:8:14: steps.speak.with.speed: expected at most 4, got 9']);
  });

  it('a value not in the enum, with a suggestion', async () => {
    expect(lines(await validateText(tempDir, speech('format: mp4')))).toEqual([
      'wf.yaml:8:15: steps.speak.with.format: expected one of "mp3", "wav", "flac", "ogg", got "mp4"; did you mean "mp3"?',
    ]);
  });

  it('a string where a number is expected, but an expression is accepted', async () => {
    expect(lines(await validateText(tempDir, speech('speed: fast')))).toEqual(['wf.yaml:8:14: steps.speak.with.speed: expected number, got string']);
    expect((await validateText(tempDir, `${speech('speed: ${{ inputs.speed }}')}inputs:\n  speed: { type: number, default: 1.5 }\n`)).ok).toBe(true);
  });

  it('an unknown top-level key, listing the known ones', async () => {
    expect(lines(await validateText(tempDir, `version: 1\nstep: {}\nsteps:\n  a:\n    task: audio.transcribe\n    with: ${TRANSCRIBE_URL}\n`))).toEqual([
      'wf.yaml:2:1: step: unknown key; did you mean "steps"?',
    ]);
  });

  it('an unknown step key with a suggestion', async () => {
    const yaml = `version: 1\nsteps:\n  a:\n    task: audio.transcribe\n    with: ${TRANSCRIBE_URL}\n    neds: [b]\n`;
    expect(lines(await validateText(tempDir, yaml))).toEqual(['wf.yaml:6:5: steps.a.neds: unknown key; did you mean "needs"?']);
  });

  it('the wrong version', async () => {
    const yaml = `version: 2\nsteps:\n  a:\n    task: audio.transcribe\n    with: ${TRANSCRIBE_URL}\n`;
    expect(lines(await validateText(tempDir, yaml))).toEqual(['wf.yaml:1:10: version: expected 1, got 2']);
  });

  it('missing steps and a missing task', async () => {
    expect(lines(await validateText(tempDir, 'version: 1\n'))).toEqual(['wf.yaml:1:1: workflow: missing required key "steps"']);
    expect(lines(await validateText(tempDir, 'version: 1\nsteps:\n  a:\n    with: {}\n'))).toEqual(['wf.yaml:4:5: steps.a: missing required key "task"']);
  });

  it('a step id that is not an identifier', async () => {
    const yaml = `version: 1\nsteps:\n  my step:\n    task: audio.transcribe\n    with: ${TRANSCRIBE_URL}\n`;
    expect(lines(await validateText(tempDir, yaml))).toEqual([
      'wf.yaml:3:3: steps["my step"]: expected an identifier (a letter or _, then letters, digits, _ or -), got "my step"',
    ]);
  });

  it('a for_each with two sources', async () => {
    const yaml = `version: 1\nsteps:\n  a:\n    task: audio.transcribe\n    for_each: { glob: "*.mp3", items: [1] }\n    with: ${TRANSCRIBE_URL}\n`;
    expect(lines(await validateText(tempDir, yaml))).toEqual(['wf.yaml:5:15: steps.a.for_each: expected exactly one of glob, items, file, matrix, got glob, items']);
  });

  it('a timeout that is not a duration', async () => {
    const yaml = `version: 1\ndefaults: { timeout: soon }\nsteps:\n  a:\n    task: audio.transcribe\n    with: ${TRANSCRIBE_URL}\n`;
    expect(lines(await validateText(tempDir, yaml))).toEqual(['wf.yaml:2:22: defaults.timeout: expected a duration such as 30, "90s", "10m" or "2h", got "soon"']);
  });

  it('a timeout of the wrong type names both accepted types', async () => {
    const yaml = `version: 1\ndefaults: { timeout: true }\nsteps:\n  a:\n    task: audio.transcribe\n    with: ${TRANSCRIBE_URL}\n`;
    expect(lines(await validateText(tempDir, yaml))).toEqual(['wf.yaml:2:22: defaults.timeout: expected number or string, got boolean']);
  });

  it('a merge key, which is not supported', async () => {
    const yaml = `version: 1\n<<: { name: x }\nsteps:\n  a:\n    task: audio.transcribe\n    with: ${TRANSCRIBE_URL}\n`;
    expect(lines(await validateText(tempDir, yaml))).toEqual(['wf.yaml:2:1: ["<<"]: merge keys (<<) are not supported; repeat the keys or use an input']);
  });

  it('a webhook URL that is not https', async () => {
    const yaml = `version: 1\nsteps:\n  a:\n    task: audio.transcribe\n    with: { source_url: "https://youtu.be/x", model: WhisperLargeV3, include_ts: false, webhook_url: "http://x.io/h" }\n`;
    expect(lines(await validateText(tempDir, yaml))).toEqual(['wf.yaml:5:102: steps.a.with.webhook_url: expected an https:// URL, got "http://x.io/h"']);
  });

  it('reports schema and semantic problems in the same pass', async () => {
    const yaml = `version: 1\nsteps:\n  a:\n    task: audio.transcribe\n    retries: -1\n    needs: [ghost]\n    with: ${TRANSCRIBE_URL}\n`;
    expect(lines(await validateText(tempDir, yaml))).toEqual([
      'wf.yaml:5:14: steps.a.retries: expected at least 0, got -1',
      'wf.yaml:6:13: steps.a.needs[0]: unknown step "ghost"',
    ]);
  });
});

describe('schema problems left to the rules', () => {
  it('still reports a task that is not a string', async () => {
    expect(lines(await validateText(tempDir, 'version: 1\nsteps:\n  a:\n    task: 5\n'))[0]).toMatch(/^wf\.yaml:4:11: steps\.a\.task: expected one of "image\.generate", /);
  });
});
