/**
 * Hostile input ends with a coded, located error and exit 2, never exit 70 (a bug by our own
 * table), and never a hang: an over-long glob segment, a JSONL item nested 100,000 deep, a
 * file field given a number, two steps saving to one path, an output folder that is a file
 * or holds a NUL, a 300-character file name, a 5 MiB or 175,000-line workflow, a FIFO, and a
 * state folder that cannot be written.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

const SPEAK = '    with: { text: "hello", model: Kokoro, voice: af_sky, lang: en-us }';
const LONG = 'a'.repeat(300);

async function deflow(dir: string, args: string[]): Promise<{ code: number; stderr: string }> {
  const io = createFakeCliIO(dir);
  const code = await runCli(args, io);
  return { code, stderr: io.stderrText() };
}

/** Runs `validate --offline` and `quote --emulator`: both refuse the same way. */
async function refused(files: Record<string, string | Buffer>, expected: string): Promise<void> {
  const dir = await useWorkspace(files);
  for (const args of [['validate', 'workflow.yaml', '--offline'], ['quote', 'workflow.yaml', '--emulator']]) {
    const { code, stderr } = await deflow(dir, args);
    expect(stderr).toContain(expected);
    expect(stderr).not.toContain('unexpected error');
    expect(code).toBe(2);
  }
}

describe('no input reaches exit 70', () => {
  it('a glob segment over 255 bytes', async () => {
    const workflow = yaml('version: 1', 'name: g', 'steps:', '  t:', '    task: audio.transcribe', `    for_each: { glob: "clips/${LONG}/*.mp3" }`, '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }');
    // The folder exists, so the listing reaches the long name.
    await refused({ 'workflow.yaml': workflow, 'clips/x.txt': 'x' }, 'workflow.yaml:6:15: steps.t.for_each: glob');
  });

  it('a JSONL item nested 100,000 levels deep', async () => {
    const workflow = yaml('version: 1', 'name: d', 'steps:', '  t:', '    task: audio.speech', '    for_each: { file: items.jsonl }', '    with: { text: "x${{ item.value }}", model: Kokoro, voice: af_sky, lang: en-us }');
    await refused({ 'workflow.yaml': workflow, 'items.jsonl': `${'['.repeat(100_000)}${']'.repeat(100_000)}\n` }, 'items.jsonl:1:1: steps.t.for_each.file: expected at most 64 levels of nesting in an item, got 100000');
  });

  it('a file field given a number', async () => {
    const workflow = yaml('version: 1', 'name: f', 'steps:', '  t:', '    task: audio.transcribe', '    for_each: { items: [5] }', '    with: { source_file: "${{ item.value }}", model: WhisperLargeV3, include_ts: false }');
    await refused({ 'workflow.yaml': workflow }, 'steps.t.with.source_file: expected a file path (a string), got a number (5)');
  });

  it('two steps saving to one path', async () => {
    const workflow = yaml('version: 1', 'name: s', 'steps:', '  a:', '    task: audio.speech', SPEAK, '    save: out.mp3', '  b:', '    task: audio.speech', SPEAK, '    save: out.mp3');
    await refused({ 'workflow.yaml': workflow }, 'workflow.yaml:11:11: steps.b.save: steps a and b would both save to "out.mp3"');
  });

  it('an output folder that is a file, or holds a NUL; a 300-character file name', async () => {
    const step = ['steps:', '  a:', '    task: audio.speech', SPEAK, '    save: x.mp3'];
    await refused({ 'workflow.yaml': yaml('version: 1', 'name: o', 'output: /etc/passwd', ...step) }, 'workflow.yaml:3:9: output: expected a folder inside the workflow\'s folder (a relative path), got the absolute path /etc/passwd');
    await refused({ 'workflow.yaml': yaml('version: 1', 'name: o', 'output: notes.txt', ...step), 'notes.txt': 'x' }, 'workflow.yaml:3:9: output: expected a folder, got an existing file');
    await refused({ 'workflow.yaml': yaml('version: 1', 'name: o', 'output: "a\\0b"', ...step) }, 'output: expected an output folder, got a NUL character');
    await refused({ 'workflow.yaml': yaml('version: 1', 'name: o', 'steps:', '  a:', '    task: audio.speech', SPEAK, `    save: ${LONG}.mp3`) }, 'steps.a.save: expected file and folder names of at most 250 bytes, got one of 304');
  });

  it('a 5 MiB workflow, and a 1 MiB one of 175,000 scalars, are refused before parsing', async () => {
    const head = yaml('version: 1', 'name: big', 'steps:', '  a:', '    task: audio.speech', SPEAK, 'x-pad:');
    await refused({ 'workflow.yaml': head + '  - 1\n'.repeat(870_000) }, 'workflow.yaml:1:1: workflow: expected a file of at most 1 MiB');
    await refused({ 'workflow.yaml': head + '  - 1\n'.repeat(174_000) }, 'expected at most 20000 lines and 20000 flow items, got 174');
  });

  it('a FIFO as the workflow is refused at once, not waited on', async () => {
    const dir = await useWorkspace({});
    execFileSync('mkfifo', [join(dir, 'workflow.yaml')]);
    const { code, stderr } = await deflow(dir, ['validate', 'workflow.yaml', '--offline']);
    expect(stderr).toContain('workflow.yaml:1:1: workflow: expected a file, got a directory or special file');
    expect(code).toBe(2);
  });

  it('a state folder that cannot be written', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': yaml('version: 1', 'name: ok', 'steps:', '  a:', '    task: audio.speech', SPEAK, '    save: x.mp3'), 'afile': 'not a folder' });
    const { code, stderr } = await deflow(dir, ['run', 'workflow.yaml', '--emulator', '--quiet', '--state-dir', 'afile/state']);
    expect(stderr).toContain('afile/state: cannot write the state folder (ENOTDIR');
    expect(stderr).not.toContain('unexpected error');
    expect(code).toBe(2);
  });
});
