/**
 * Where a workflow may write (issue 25.6) and how long a path may be (25.7): a workflow's
 * `output:` and every `save:` stay inside the workflow's folder once symbolic links are
 * resolved, refused by `validate` at the line and column otherwise (an absolute path, ".."
 * climbing out, an output folder that is a link to elsewhere); the operator's `--output DIR`
 * may point anywhere. A save path 2,500 folders deep (each name short, the whole over 4,096
 * bytes) is refused at validate, and a path that a result makes too long is refused before its
 * job is submitted (it paid, created 2,025 folders and failed ENAMETOOLONG before).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

const STEP = ['steps:', '  a:', '    task: text.embed', '    with: { input: "hello", model: Bge_M3_FP16 }', '    save: "a.json"'];

async function deflow(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = createFakeCliIO(dir);
  const code = await runCli(args, { ...io, env: {} });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

function elsewhere(): string {
  const dir = mkdtempSync(join(tmpdir(), 'deflow-elsewhere-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function validate(files: Record<string, string>, setup?: (dir: string) => void): Promise<{ code: number; stderr: string; dir: string }> {
  const dir = await useWorkspace(files);
  setup?.(dir);
  return { ...(await deflow(dir, ['validate', 'workflow.yaml', '--offline'])), dir };
}

describe("a workflow's output folder stays inside the workflow's folder", () => {
  it('refuses an absolute output folder, located', async () => {
    const target = elsewhere();
    const { code, stderr } = await validate({ 'workflow.yaml': yaml('version: 1', `output: ${target}`, ...STEP) });
    expect(stderr).toContain(`workflow.yaml:2:9: output: expected a folder inside the workflow's folder (a relative path), got the absolute path ${target}; only the operator's --output DIR may point elsewhere`);
    expect(code).toBe(2);
  });

  it('refuses ".." climbing out of the folder, located', async () => {
    const { code, stderr, dir } = await validate({ 'workflow.yaml': yaml('version: 1', 'output: sub/../../x', ...STEP) });
    expect(stderr).toContain(`workflow.yaml:2:9: output: expected a folder inside the workflow's folder ${dir}, got ${join(dir, '..', 'x')} (".." climbs out of it)`);
    expect(code).toBe(2);
  });

  it('refuses an output folder (or a folder above it) that is a symbolic link to elsewhere', async () => {
    const target = elsewhere();
    for (const [output, link] of [['out', 'out'], ['results/run1', 'results']] as const) {
      const { code, stderr } = await validate({ 'workflow.yaml': yaml('version: 1', `output: ${output}`, ...STEP) }, (dir) => symlinkSync(target, join(dir, link)));
      expect(stderr).toMatch(new RegExp(`workflow\\.yaml:2:9: output: expected a folder inside the workflow's folder .*, but .*${output.replace('/', '\\/')} resolves to ${target}.* \\(through a symbolic link\\)`));
      expect(code).toBe(2);
    }
  });

  it('accepts a folder inside, and ".." that stays inside', async () => {
    for (const output of ['out', 'a/../out', 'deep/er']) {
      const { code, stderr } = await validate({ 'workflow.yaml': yaml('version: 1', `output: ${output}`, ...STEP) });
      expect(stderr).toBe('');
      expect(code).toBe(0);
    }
  });

  it("the operator's --output may point anywhere", async () => {
    const target = elsewhere();
    const dir = await useWorkspace({ 'workflow.yaml': yaml('version: 1', ...STEP), 'emulator.yaml': 'time_scale: 200\n' });
    const run = await deflow(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--quiet', '--output', target]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readdirSync(target)).toEqual(['a.json']);
  });
});

describe('save paths of a length file systems take', () => {
  it('refuses at validate a save path 2,500 folders deep (over 4,096 bytes), located', async () => {
    const deep = `${'d/'.repeat(2500)}x.json`;
    const workflow = yaml('version: 1', 'steps:', '  a:', '    task: text.embed', '    with: { input: "hello", model: Bge_M3_FP16 }', `    save: "${deep}"`);
    const { code, stderr } = await validate({ 'workflow.yaml': workflow });
    expect(stderr).toMatch(/workflow\.yaml:6:11: steps\.a\.save: expected a path of less than 4096 bytes \(the output folder included\), got one of \d{4}/);
    expect(code).toBe(2);
  });

  it('refuses a path a result makes too long before its job is submitted (nothing paid, no folder made)', async () => {
    const workflow = yaml(
      'version: 1',
      'steps:',
      '  enhance:',
      '    task: prompt.enhance',
      '    with: { prompt: "a red fox in snow", type: images.generations, model_slug: Flux1schnell }',
      '  embed:',
      '    task: text.embed',
      '    with: { input: "hello", model: Bge_M3_FP16 }',
      `    save: "${'d/'.repeat(1980)}${Array(4).fill('${{ steps.enhance.text }}').join('/')}.json"`,
    );
    const dir = await useWorkspace({ 'workflow.yaml': workflow, 'emulator.yaml': 'time_scale: 200\n' });
    const run = await deflow(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--quiet', '--report', 'run.json']);
    expect(run.stderr).not.toContain("unexpected error");
    const report = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { steps: { id: string; items: { status: string; request_id: string | null; error: { code: string; message: string } | null }[] }[] };
    const embed = report.steps.find((step) => step.id === 'embed')!.items[0]!;
    expect(embed).toMatchObject({ status: 'failed', request_id: null, error: { code: 'E_WORKFLOW_SAVE_PATH' } });
    expect(embed.error!.message).toContain('expected a path of less than 4096 bytes');
    expect(readdirSync(dir)).not.toContain('out');
    expect(run.code).toBe(1);
  });
});
