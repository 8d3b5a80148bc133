/**
 * The GitHub Action's logic (action/run.mjs) run as the composite runs it, with the variables a
 * runner sets (GITHUB_ACTIONS, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, RUNNER_TEMP, GITHUB_WORKSPACE,
 * INPUT_*), against deflow's in-process emulator over loopback: it writes the step summary and
 * the outputs, lets annotations through, and exits with deflow's exit code.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { useDemoWorkspace } from '../helpers/demo-workspace.js';
import { groupsOf } from '../helpers/github-groups.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';

const script = new URL('../../action/run.mjs', import.meta.url).pathname;
let built: BuiltCli;

beforeAll(async () => {
  built = await buildCliAside('deflow-action-cli-');
}, 180_000);
afterAll(() => built?.remove());

interface ActionResult {
  readonly code: number;
  readonly stdout: string;
  /** The runner reads workflow commands (annotations) from stdout and stderr alike. */
  readonly stderr: string;
  readonly outputs: Record<string, string>;
  readonly summary: string;
}

/** Runs action/run.mjs in `dir` with the action's inputs as INPUT_* variables. */
async function runAction(dir: string, inputs: Record<string, string>): Promise<ActionResult> {
  const files = { summary: join(dir, 'step-summary.md'), output: join(dir, 'github-output.txt') };
  await writeFile(files.summary, '');
  await writeFile(files.output, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    GITHUB_WORKSPACE: dir,
    GITHUB_RUN_ID: '4242',
    GITHUB_ACTION: 'deflow',
    RUNNER_TEMP: join(dir, 'runner-temp'),
    DEFLOW_CLI: built.main,
  };
  // As the runner names them for a JavaScript action: upper case, hyphens kept.
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase()}`] = value;
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [script], { cwd: dir, env }, (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }));
  });
  const outputs = Object.fromEntries(
    (await readFile(files.output, 'utf8'))
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { code, stdout, stderr, outputs, summary: await readFile(files.summary, 'utf8') };
}

/** A nightly whose inbox holds one corrupt file: defaults.keep_going leaves it out. */
const KEEP_GOING = yaml(
  'version: 1',
  'name: nightly',
  'defaults: { keep_going: true }',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "clips/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
  '    save: "${{ item.stem }}.txt"',
);

describe('the GitHub Action script (action/run.mjs)', () => {
  it('a run done with an input left out exits 6 and fails the step; allow-left-out: true passes it, the exit-code output staying 6', async () => {
    const dir = await useWorkspace({ 'nightly.yaml': KEEP_GOING, 'clips/a.mp3': makeMp3(2), 'clips/b.mp3': makeMp3(3), 'clips/broken.mp3': 'no audio here' });
    const strict = await runAction(dir, { workflow: 'nightly.yaml', command: 'run', emulator: 'true', inputs: '' });
    expect(strict.code, strict.stdout + strict.stderr).toBe(6);
    expect(strict.outputs['exit-code']).toBe('6');
    const report = JSON.parse(await readFile(strict.outputs['report']!, 'utf8')) as { status: string; exit_code: number; totals: { invalid: number } };
    expect(report).toMatchObject({ status: 'left-out', exit_code: 6, totals: { invalid: 1 } });

    const allowed = await runAction(dir, { workflow: 'nightly.yaml', command: 'run', emulator: 'true', inputs: '', 'allow-left-out': 'true' });
    expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
    expect(allowed.outputs['exit-code']).toBe('6');
  });

  it('command run: the run summary in GITHUB_STEP_SUMMARY, cost, quote-high, report and exit-code in GITHUB_OUTPUT', async () => {
    const dir = await useDemoWorkspace();
    const result = await runAction(dir, { workflow: 'workflows/demo.yaml', command: 'run', emulator: 'true', 'max-cost': '1', inputs: '' });
    expect(result.code, result.stdout).toBe(0);
    expect(Object.keys(result.outputs).sort()).toEqual(['cost', 'exit-code', 'quote-high', 'report']);
    expect(result.outputs['exit-code']).toBe('0');
    expect(Number(result.outputs['cost'])).toBeGreaterThan(0);
    expect(Number(result.outputs['quote-high'])).toBeGreaterThanOrEqual(Number(result.outputs['cost']) * 0.5);
    const reportPath = result.outputs['report']!;
    expect(reportPath).toBe(join(dir, 'runner-temp', 'deflow-4242-deflow', 'run.json'));
    const report = JSON.parse(await readFile(reportPath, 'utf8')) as { status: string; totals: { cost_actual: number } };
    expect(report.status).toBe('done');
    expect(String(report.totals.cost_actual)).toBe(result.outputs['cost']);
    expect(result.summary).toContain('## deflow: demo: ');
    // The log: the action's inputs in a group, then a group per workflow step (none nested), deflow's progress outside them (not --quiet).
    expect(result.stdout.match(/^::group::.+$/gm)).toEqual(['::group::deflow: inputs']);
    expect(result.stdout.match(/^::endgroup::$/gm)).toHaveLength(1);
    expect(groupsOf(result.stderr).map((group) => group.title.replace(/:.*$/, '')).sort()).toEqual(['✓ step describe (video.describe)', '✓ step speak (audio.speech)', '✓ step transcribe (audio.transcribe)']);
    expect(result.stdout).not.toContain('--quiet');
    expect(result.stderr).toMatch(/^\[deflow\] running demo: 5 items in 3 steps/m);
    expect(result.stderr).toMatch(/^\[deflow\] done \(exit 0\).*5\/5 done.*spent/m);
    expect(await readFile(join(dir, 'runner-temp', 'deflow-4242-deflow', 'report.html'), 'utf8')).toContain('<svg');
    expect(await readFile(join(dir, 'runner-temp', 'deflow-4242-deflow', 'junit.xml'), 'utf8')).toContain('<testsuites');
  });

  it('command quote: the quote table in the summary, its point and high end as outputs; over max-cost it exits 4 with an error annotation', async () => {
    const dir = await useDemoWorkspace();
    const quote = await runAction(dir, { workflow: 'workflows/demo.yaml', command: 'quote', emulator: 'true' });
    expect(quote.code, quote.stdout).toBe(0);
    const json = JSON.parse(await readFile(quote.outputs['report']!, 'utf8')) as { format_version: number; total: { point: number; high: number } };
    expect(json.format_version).toBe(2);
    expect(quote.outputs['cost']).toBe(String(json.total.point));
    expect(quote.outputs['quote-high']).toBe(String(json.total.high));
    expect(quote.summary).toContain('Quote: `workflows/demo.yaml`');
    expect(quote.summary).toContain('transcribe');

    const over = await runAction(dir, { workflow: 'workflows/demo.yaml', command: 'quote', emulator: 'true', 'max-cost': '0.000001' });
    expect(over.code).toBe(4);
    expect(over.outputs['exit-code']).toBe('4');
    expect(over.stdout).toMatch(/^::error title=deflow::workflows\/demo\.yaml: .+/m);
  });

  it('command validate: problems annotated by deflow and listed in the summary (exit 2); workflow inputs passed as --input', async () => {
    const dir = await useDemoWorkspace();
    await writeFile(join(dir, 'bad.yaml'), 'version: 1\nsteps:\n  a:\n    task: audio.speech\n    with: { text: 1, model: Kokoro, voice: af_sky, lang: en-us }\n');
    const bad = await runAction(dir, { workflow: 'bad.yaml', command: 'validate' });
    expect(bad.code).toBe(2);
    expect(bad.outputs['exit-code']).toBe('2');
    expect(bad.stderr).toMatch(/^::error file=bad\.yaml,line=5,col=\d+/m);
    expect(bad.summary).toContain('❌ 1 problem(s)');
    expect(bad.summary).toContain('`bad.yaml:5:');

    const good = await runAction(dir, { workflow: 'workflows/image-batch.yaml', command: 'validate', inputs: 'size=768\n# a comment\n' });
    expect(good.code, good.stdout).toBe(0);
    expect(good.summary).toContain('✅ valid: 3 job(s) in 1 step(s)');
    const validated = JSON.parse(await readFile(good.outputs['report']!, 'utf8')) as { plan: { steps: { filled: unknown[] }[] } };
    expect(validated.plan.steps).toHaveLength(1);
  });

  it('refuses bad inputs with an error annotation and exit 2, before running anything', async () => {
    const dir = await useDemoWorkspace();
    const result = await runAction(dir, { workflow: 'workflows/demo.yaml', command: 'deploy' });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('::error title=deflow::command: expected one of run, quote, validate, got "deploy"');
    expect(result.outputs['exit-code']).toBe('2');
    const inputs = await runAction(dir, { workflow: 'workflows/demo.yaml', command: 'validate', inputs: 'just-a-word' });
    expect(inputs.code).toBe(2);
    expect(inputs.stdout).toContain('inputs: expected one name=value per line, got "just-a-word"');
  });
});
