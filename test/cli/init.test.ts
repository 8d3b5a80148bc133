import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

async function cli(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = { ...createFakeCliIO(cwd), env: {} };
  const code = await runCli(args, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('deflow init', () => {
  it('writes a starter that validates and runs on the emulator, .env.example, .gitignore entries and CI snippets', async () => {
    const dir = await useWorkspace({ '.gitignore': 'node_modules/\nout/' });
    const init = await cli(dir, ['init', 'project']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('wrote project/workflow.yaml');
    expect(init.stdout).toContain('added .deflow/, out/, .env to project/.gitignore');
    const workflow = await readFile(join(dir, 'project/workflow.yaml'), 'utf8');
    expect(workflow.split('\n').filter((line) => line.trimStart().startsWith('#')).length).toBeGreaterThan(10);
    expect(await readFile(join(dir, 'project/.env.example'), 'utf8')).toMatch(/^DEAPI_API_KEY=$/m);
    expect(await readFile(join(dir, 'project/.gitignore'), 'utf8')).toBe('# deflow: state folder, outputs, secrets\n.deflow/\nout/\n.env\n');

    const github = parse(await readFile(join(dir, 'project/ci/github-actions.yml'), 'utf8')) as { on: Record<string, unknown>; jobs: { deflow: { steps: { id?: string; with?: Record<string, unknown> }[] } } };
    expect(Object.keys(github.on)).toEqual(['pull_request', 'schedule', 'workflow_dispatch']);
    const step = github.jobs.deflow.steps.find((s) => s.id === 'deflow');
    expect(Object.keys(step?.with ?? {})).toEqual(['workflow', 'command', 'max-cost']);
    const gitlab = parse(await readFile(join(dir, 'project/ci/gitlab-ci.yml'), 'utf8')) as Record<string, { script?: string[] }>;
    expect(gitlab['deflow-nightly']?.script?.join('\n')).toContain('deflow run project/workflow.yaml --max-cost 0.10');

    const validate = await cli(dir, ['validate', 'project/workflow.yaml', '--offline']);
    expect(validate.code, validate.stderr).toBe(0);
    const run = await cli(dir, ['run', 'project/workflow.yaml', '--emulator', '--quiet', '--report', 'run.json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')) as { status: string; totals: { done: number } };
    expect(report).toMatchObject({ status: 'done', totals: { done: 4 } });
    expect(await readFile(join(dir, 'project/out/image-1.txt'), 'utf8')).not.toBe('');
  });

  it('init DIR writes paths right from where each is read: the schema from DIR, the workflow and its outputs from the repository root', async () => {
    const dir = await useWorkspace({ '.git/HEAD': 'ref: refs/heads/main\n', 'node_modules/deflow/schemas/workflow.schema.json': '{}' });
    const init = await cli(join(dir, 'tools'), ['init', '../pipelines/nightly']);
    expect(init.code, init.stderr).toBe(0);
    const workflow = await readFile(join(dir, 'pipelines/nightly/workflow.yaml'), 'utf8');
    expect(workflow.split('\n')[0]).toBe('# yaml-language-server: $schema=../../node_modules/deflow/schemas/workflow.schema.json');
    const github = parse(await readFile(join(dir, 'pipelines/nightly/ci/github-actions.yml'), 'utf8')) as { jobs: { deflow: { steps: { id?: string; with?: Record<string, unknown> }[] } } };
    expect(github.jobs.deflow.steps.find((s) => s.id === 'deflow')?.with?.workflow).toBe('pipelines/nightly/workflow.yaml');
    const gitlab = parse(await readFile(join(dir, 'pipelines/nightly/ci/gitlab-ci.yml'), 'utf8')) as Record<string, { script?: string[]; artifacts?: { paths?: string[] } }>;
    expect(gitlab['deflow-quote']?.script).toContain('npx deflow validate pipelines/nightly/workflow.yaml');
    expect(gitlab['deflow-nightly']?.script?.join('\n')).toContain('npx deflow run pipelines/nightly/workflow.yaml --max-cost 0.10');
    expect(gitlab['deflow-nightly']?.artifacts?.paths).toEqual(['run.json', 'report.html', 'pipelines/nightly/out/']);

    // No repository and no installed deflow: both from the current folder.
    const bare = await useWorkspace({});
    expect((await cli(bare, ['init', 'my-pipeline'])).code).toBe(0);
    expect((await readFile(join(bare, 'my-pipeline/workflow.yaml'), 'utf8')).split('\n')[0]).toBe('# yaml-language-server: $schema=../node_modules/deflow/schemas/workflow.schema.json');
    expect(await readFile(join(bare, 'my-pipeline/ci/github-actions.yml'), 'utf8')).toContain('workflow: my-pipeline/workflow.yaml\n');
  });

  it('refuses to overwrite: names every file already there and writes nothing (exit 2)', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': 'mine\n', 'ci/gitlab-ci.yml': 'mine too\n' });
    const init = await cli(dir, ['init']);
    expect(init.code).toBe(2);
    expect(init.stderr).toContain('.: workflow.yaml, ci/gitlab-ci.yml already exist; deflow init writes nothing over existing files');
    expect(await readFile(join(dir, 'workflow.yaml'), 'utf8')).toBe('mine\n');
    await expect(readFile(join(dir, '.env.example'), 'utf8')).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(dir, '.gitignore'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('adds only the .gitignore entries missing', async () => {
    const dir = await useWorkspace({ '.gitignore': '.deflow\nout/\n.env\n' });
    const init = await cli(dir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('.gitignore already ignores');
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('.deflow\nout/\n.env\n');
  });
});
