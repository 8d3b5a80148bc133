/**
 * The built CLI's log in GitHub Actions (GITHUB_ACTIONS=true, stderr not a terminal), run
 * against its in-process emulator: one folded `::group::` block per workflow step, written as
 * the step ends, while steps run side by side (the demo's transcription and video description
 * do); the progress lines (done/total, spend, ETA) stay outside every block.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { useDemoWorkspace } from '../helpers/demo-workspace.js';
import { groupsOf } from '../helpers/github-groups.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';

let built: BuiltCli;

beforeAll(async () => {
  built = await buildCliAside('deflow-groups-cli-');
}, 180_000);
afterAll(() => built?.remove());

/** `deflow ARGS` in `dir`, as a runner's step runs it (or, with `actions: false`, outside Actions). */
function deflow(dir: string, args: string[], actions = true): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], CI: 'true', ...(actions ? { GITHUB_ACTIONS: 'true' } : {}) };
  return new Promise((resolve) => {
    execFile(process.execPath, [built.main, ...args], { cwd: dir, env }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

describe('deflow run in a GitHub Actions log', () => {
  it('folds each of the demo’s three steps into a block of its own as it ends, with the progress lines outside', async () => {
    const dir = await useDemoWorkspace();
    const run = await deflow(dir, ['run', 'workflows/demo.yaml', '--emulator']);
    expect(run.code, run.stderr).toBe(0);
    const groups = groupsOf(run.stderr);
    expect(groups.map((group) => group.title.replace(/ · \$[\d.]+$/, '')).sort()).toEqual([
      '✓ step describe (video.describe): 1/1 done',
      '✓ step speak (audio.speech): 2/2 done',
      '✓ step transcribe (audio.transcribe): 2/2 done',
    ]);
    // speak reads transcribe's text: its block cannot come first.
    expect(groups.findIndex((group) => group.title.includes('step speak'))).toBeGreaterThan(groups.findIndex((group) => group.title.includes('step transcribe')));
    for (const group of groups) expect(group.body).toEqual(expect.arrayContaining(['  failed: 0', '  skipped: 0', '  unknown: 0', expect.stringMatching(/^ {2}spent: \$\d/), expect.stringMatching(/^ {2}took: /)]));
    // The progress lines: the start before the first block, the summary after the last.
    const lines = run.stderr.split('\n');
    expect(lines.findIndex((line) => line.startsWith('[deflow] running demo: 5 items in 3 steps'))).toBeLessThan(lines.indexOf(`::group::${groups[0]!.title}`));
    expect(lines.findIndex((line) => /^\[deflow\] done \(exit 0\).*5\/5 done/.test(line))).toBeGreaterThan(lines.lastIndexOf('::endgroup::'));
    expect(run.stdout).not.toContain('::group::');
  });

  it('a step with an input left out (--keep-going) says so in its block; outside Actions there are no blocks', async () => {
    const dir = await useWorkspace({
      'nightly.yaml': yaml(
        'version: 1',
        'name: nightly',
        'defaults: { keep_going: true }',
        'steps:',
        '  transcribe:',
        '    task: audio.transcribe',
        '    for_each: { glob: "clips/*.mp3" }',
        '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
        '    save: "${{ item.stem }}.txt"',
      ),
      'clips/a.mp3': makeMp3(2),
      'clips/b.mp3': makeMp3(3),
      'clips/broken.mp3': 'no audio here',
    });
    const run = await deflow(dir, ['run', 'nightly.yaml', '--emulator']);
    expect(run.code, run.stderr).toBe(6);
    const [block, ...others] = groupsOf(run.stderr);
    expect(others).toEqual([]);
    expect(block!.title).toMatch(/^✓ step transcribe \(audio\.transcribe\): 2\/3 done · \$/);
    expect(block!.body).toContain('  skipped: 1');

    const plain = await deflow(dir, ['run', 'nightly.yaml', '--emulator'], false);
    expect(plain.code, plain.stderr).toBe(6);
    expect(plain.stderr).not.toContain('::group::');
  });
});
