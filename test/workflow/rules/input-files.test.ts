import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeMp3, makePng } from '../../../src/emulator/media/index.js';
import { inputFiles } from '../../../src/workflow/rules/input-files.js';
import { runRule, useTempDirs, writeTree } from '../helpers.js';
import { loadWorkflow } from '../../../src/workflow/validate/load-workflow.js';
import { createRuleContext, validateWorkflow } from '../../../src/workflow/validate/validate-workflow.js';

const tempDir = useTempDirs();
const ocr = (image: string, forEach = ''): string => `version: 1\nsteps:\n  r:\n    task: image.ocr\n${forEach}    with: { image: ${image}, model: Nanonets_Ocr_S_F16 }\n`;
const png = makePng({ width: 8, height: 8 });

describe('inputFiles', () => {
  it('accepts a file whose content is an accepted format', async () => {
    expect((await runRule(tempDir, inputFiles, ocr('scan.png'), { files: { 'scan.png': png } })).errors).toEqual([]);
  });

  it('sniffs the content, not the extension', async () => {
    expect((await runRule(tempDir, inputFiles, ocr('scan.png'), { files: { 'scan.png': makeMp3(1) } })).errors).toEqual([
      'wf.yaml:5:20: steps.r.with.image: scan.png: expected jpg, jpeg, png, gif, bmp, webp, got mp3 (audio/mpeg)',
    ]);
    expect((await runRule(tempDir, inputFiles, ocr('scan.png'), { files: { 'scan.png': 'not an image' } })).errors).toEqual([
      'wf.yaml:5:20: steps.r.with.image: scan.png: expected jpg, jpeg, png, gif, bmp, webp, got content of an unrecognised format',
    ]);
  });

  it('reports a missing file and an empty one', async () => {
    expect((await runRule(tempDir, inputFiles, ocr('nope.png'))).errors).toEqual(['wf.yaml:5:20: steps.r.with.image: nope.png: file not found']);
    expect((await runRule(tempDir, inputFiles, ocr('e.png'), { files: { 'e.png': '' } })).errors).toEqual([
      'wf.yaml:5:20: steps.r.with.image: e.png: expected jpg, jpeg, png, gif, bmp, webp, got an empty file',
    ]);
  });

  it('is left out by validateWorkflow with checkInputFiles: false (a queue worker), and only then', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'wf.yaml': ocr('nope.png') });
    expect((await validateWorkflow('wf.yaml', { cwd: dir, offline: true })).errors.map((e) => e.message)).toEqual(['wf.yaml:5:20: steps.r.with.image: nope.png: file not found']);
    expect((await validateWorkflow('wf.yaml', { cwd: dir, offline: true, checkInputFiles: false })).ok).toBe(true);
  });

  it('refuses a file over the field size cap (audio for transcription: 20 MiB)', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'wf.yaml': 'version: 1\nsteps:\n  t:\n    task: audio.transcribe\n    with: { source_file: big.mp3, model: WhisperLargeV3, include_ts: false }\n' });
    await writeFile(join(dir, 'big.mp3'), makeMp3(1));
    await truncate(join(dir, 'big.mp3'), 20 * 1024 * 1024 + 1);
    const loaded = await loadWorkflow('wf.yaml', { cwd: dir });
    const errors: string[] = [];
    const context = await createRuleContext(loaded.workflow!, { offline: true }, [], []);
    await inputFiles.check({ ...context, report: (e) => errors.push(e.message) });
    expect(errors).toEqual(['wf.yaml:5:26: steps.t.with.source_file: big.mp3: expected at most 20971520 bytes, got 20971521 bytes']);
  });

  it('checks every item and names each bad file on its own line', async () => {
    const files = { 'scans/a.png': png, 'scans/b.png': 'x', 'scans/c.png': 'y', 'scans/d.png': png };
    expect((await runRule(tempDir, inputFiles, ocr('"${{ item.path }}"', '    for_each: { glob: "scans/*.png" }\n'), { files })).errors).toEqual([
      'wf.yaml:6:20: steps.r.with.image: scans/b.png: expected jpg, jpeg, png, gif, bmp, webp, got content of an unrecognised format (item 1)',
      'wf.yaml:6:20: steps.r.with.image: scans/c.png: expected jpg, jpeg, png, gif, bmp, webp, got content of an unrecognised format (item 2)',
    ]);
  });

  it('refuses a URL in a file field, naming the URL field', async () => {
    const yaml = 'version: 1\nsteps:\n  t:\n    task: audio.transcribe\n    with: { source_file: "https://youtu.be/x", model: WhisperLargeV3, include_ts: false }\n';
    expect((await runRule(tempDir, inputFiles, yaml)).errors).toEqual([
      'wf.yaml:5:26: steps.t.with.source_file: expected a file path, got a URL; audio.transcribe takes URLs in source_url',
    ]);
  });
});
