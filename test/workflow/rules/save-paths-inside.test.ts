import { describe, expect, it } from 'vitest';
import { savePathsInside } from '../../../src/workflow/rules/save-paths-inside.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const files = { 'in/a.png': 'x', 'in/b.png': 'x', 'other/a.png': 'x' };
const ocr = (save: string, glob = 'in/*.png'): string =>
  `version: 1\nsteps:\n  r:\n    task: image.ocr\n    for_each: { glob: "${glob}" }\n    with: { image: "\${{ item.path }}", model: Nanonets_Ocr_S_F16 }\n    save: ${save}\n`;

describe('savePathsInside', () => {
  it('accepts a per-item path under the output folder', async () => {
    expect((await runRule(tempDir, savePathsInside, ocr('"text/${{ item.stem }}.txt"'), { files })).errors).toEqual([]);
  });

  it('refuses a literal .. segment, an absolute path and a folder', async () => {
    expect((await runRule(tempDir, savePathsInside, ocr('"../${{ item.stem }}.txt"'), { files })).errors).toEqual([
      'wf.yaml:7:11: steps.r.save: expected a path inside the output folder, got a ".." segment',
    ]);
    expect((await runRule(tempDir, savePathsInside, ocr('"/tmp/${{ item.stem }}.txt"'), { files })).errors).toEqual([
      'wf.yaml:7:11: steps.r.save: expected a path relative to the output folder, got an absolute path',
    ]);
    expect((await runRule(tempDir, savePathsInside, ocr('"${{ item.stem }}/"'), { files })).errors).toEqual([
      'wf.yaml:7:11: steps.r.save: expected a file name at the end, got a folder',
    ]);
  });

  it('refuses a rendered path that climbs out through an item value', async () => {
    const yaml = `version: 1\nsteps:\n  r:\n    task: image.ocr\n    for_each: { items: [{ p: a.png, n: ok }, { p: a.png, n: ".." }] }\n    with: { image: "\${{ item.p }}", model: Nanonets_Ocr_S_F16 }\n    save: "\${{ item.n }}/x.txt"\n`;
    expect((await runRule(tempDir, savePathsInside, yaml)).errors).toEqual([
      'wf.yaml:7:11: steps.r.save: expected a path inside the output folder, got a ".." segment: "../x.txt" (item 1)',
    ]);
  });

  it('refuses the same path for every item, and two items rendering to one path', async () => {
    expect((await runRule(tempDir, savePathsInside, ocr('all.txt'), { files })).errors).toEqual([
      'wf.yaml:7:11: steps.r.save: every item would be saved to the same path; include ${{ item.stem }} or ${{ item.index }}',
    ]);
    expect((await runRule(tempDir, savePathsInside, ocr('"${{ item.name }}.txt"', '*/a.png'), { files })).errors).toEqual([
      'wf.yaml:7:11: steps.r.save: items 0 and 1 would both be saved to "a.png.txt"',
    ]);
  });

  it('refuses a fan-out path with no per-item part even over an empty folder or a single item (issue 27.11)', async () => {
    const sameEveryItem = 'wf.yaml:7:11: steps.r.save: every item would be saved to the same path; include ${{ item.stem }} or ${{ item.index }}';
    expect((await runRule(tempDir, savePathsInside, ocr('x.mp3', 'empty/*.png'), { files })).errors).toEqual([sameEveryItem]);
    expect((await runRule(tempDir, savePathsInside, ocr('x.mp3', 'other/*.png'), { files })).errors).toEqual([sameEveryItem]);
    expect((await runRule(tempDir, savePathsInside, ocr('"${{ run.id }}.txt"', 'empty/*.png'), { files })).errors).toEqual([sameEveryItem]);
    expect((await runRule(tempDir, savePathsInside, ocr('"${{ item.stem }}.txt"', 'empty/*.png'), { files })).errors).toEqual([]);
  });
});
