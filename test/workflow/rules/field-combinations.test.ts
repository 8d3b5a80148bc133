import { describe, expect, it } from 'vitest';
import { fieldCombinations } from '../../../src/workflow/rules/field-combinations.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const describeStep = (forEach: string, withs: string): string =>
  `version: 1\nsteps:\n  d:\n    task: video.describe\n${forEach}    with: { ${withs}model: Marlin_2B }\n`;

describe('fieldCombinations', () => {
  it('requires one of a group', async () => {
    expect((await runRule(tempDir, fieldCombinations, describeStep('', ''))).errors).toEqual([
      'wf.yaml:5:5: steps.d.with: expected exactly one of video_url, video_file, got none',
    ]);
  });

  it('refuses two literal members of a group', async () => {
    const yaml = describeStep('', 'video_url: "https://youtu.be/a", video_file: a.mp4, ');
    expect((await runRule(tempDir, fieldCombinations, yaml)).errors).toEqual([
      'wf.yaml:5:5: steps.d.with: expected exactly one of video_url, video_file, got video_url and video_file',
    ]);
  });

  it('accepts items that each set one member, and names an item that sets both or none', async () => {
    const withs = 'video_url: "${{ item.url }}", video_file: "${{ item.file }}", ';
    const good = describeStep('    for_each: { items: [{ url: "https://youtu.be/a" }, { file: a.mp4 }] }\n', withs);
    expect((await runRule(tempDir, fieldCombinations, good)).errors).toEqual([]);
    const bad = describeStep('    for_each: { items: [{ url: "https://youtu.be/a", file: a.mp4 }, { name: x }, { name: y }] }\n', withs);
    expect((await runRule(tempDir, fieldCombinations, bad)).errors).toEqual([
      'wf.yaml:6:5: steps.d.with: expected exactly one of video_url, video_file, got video_url and video_file (item 0)',
      'wf.yaml:6:5: steps.d.with: expected exactly one of video_url, video_file, got none (each is empty or null) (item 1)',
      'wf.yaml:6:5: steps.d.with: expected exactly one of video_url, video_file, got none (each is empty or null) (item 2)',
    ]);
  });

  it('names an item that leaves the URL field and the file field empty (the service answers 422)', async () => {
    const both = describeStep('    for_each: { items: [{ url: "", file: "" }, { url: "https://youtu.be/a", file: "" }] }\n', 'video_url: "${{ item.url }}", video_file: "${{ item.file }}", ');
    expect((await runRule(tempDir, fieldCombinations, both)).errors).toEqual(['wf.yaml:6:5: steps.d.with: expected exactly one of video_url, video_file, got none (each is empty or null) (item 0)']);
    const one = describeStep('    for_each: { items: [{ url: "https://youtu.be/a" }, { url: "" }] }\n', 'video_url: "${{ item.url }}", ');
    expect((await runRule(tempDir, fieldCombinations, one)).errors).toEqual(['wf.yaml:6:5: steps.d.with: expected exactly one of video_url, video_file, got none (video_url is empty or null) (item 1)']);
  });

  it('requires the field another one needs', async () => {
    const yaml = describeStep('', 'video_url: "https://youtu.be/a", webhook_secret: "0123456789abcdef0123456789abcdef", ');
    expect((await runRule(tempDir, fieldCombinations, yaml)).errors).toEqual(['wf.yaml:5:46: steps.d.with.webhook_secret: "webhook_secret" needs "webhook_url", which is missing']);
  });
});
