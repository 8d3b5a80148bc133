import { describe, expect, it } from 'vitest';
import { tasksExist } from '../../../src/workflow/rules/tasks-exist.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();

describe('tasksExist', () => {
  it('suggests the nearest task id', async () => {
    expect((await runRule(tempDir, tasksExist, 'version: 1\nsteps:\n  a:\n    task: audio.transcribes\n')).errors).toEqual([
      'wf.yaml:4:11: steps.a.task: unknown task "audio.transcribes"; did you mean "audio.transcribe"?',
    ]);
  });

  it('lists every task id when nothing is close', async () => {
    const [line] = (await runRule(tempDir, tasksExist, 'version: 1\nsteps:\n  a:\n    task: summarise\n')).errors;
    expect(line).toBe(
      'wf.yaml:4:11: steps.a.task: unknown task "summarise"; expected one of image.generate, image.edit, image.ocr, image.remove-background, image.upscale, video.generate, video.animate, video.audio-sync, video.replace, video.upscale, video.describe, video.remove-background, audio.speech, audio.music, audio.transcribe, text.embed, prompt.enhance',
    );
  });
});
