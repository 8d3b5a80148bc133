import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { registerValidateCommand } from '../../src/cli/commands/validate.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';
import { writeTree } from '../workflow/helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-cli-validate-'));
  await writeTree(dir, {
    'good.yaml': `version: 1
inputs:
  voice: { type: string, default: af_bella }
steps:
  transcribe:
    task: audio.transcribe
    for_each: { items: ["https://youtu.be/a", "https://youtu.be/b"] }
    with: { source_url: "\${{ item.value }}", model: WhisperLargeV3, include_ts: false }
  speak:
    task: audio.speech
    for_each: transcribe
    with: { text: "\${{ steps.transcribe.text }}", model: Kokoro, voice: "\${{ inputs.voice }}" }
    save: "\${{ item.index }}.mp3"
`,
    'bad.yaml': 'version: 1\nsteps:\n  speak:\n    task: audio.speech\n    with:\n      text: Hello there\n      model: Kokoro\n      voice: 5\n',
    'many,bad:%.yaml': `version: 1\nsteps:\n  s:\n    task: audio.speech\n    with:\n      text: Hello there\n      model: Kokoro\n${Array.from({ length: 12 }, (_, i) => `      "x${i}%": 1\n`).join('')}`,
    'in.yaml': 'voice: am_adam\n',
    // 105 scans, every one of them not an image: each is named on its own line, up to 100.
    'scans.yaml': 'version: 1\nsteps:\n  read:\n    task: image.ocr\n    for_each: { glob: "scans/*.png" }\n    with: { image: "${{ item.path }}", model: Nanonets_Ocr_S_F16 }\n',
    ...Object.fromEntries(Array.from({ length: 105 }, (_, i) => [`scans/s${String(i).padStart(3, '0')}.png`, 'not an image'])),
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const io = { ...createFakeCliIO(dir), env };
  const code = await runCli(args, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('deflow validate', () => {
  it('exits 0 and prints the plan for a valid workflow', async () => {
    const { code, stdout, stderr } = await run(['validate', 'good.yaml', '--offline']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(
      [
        'good.yaml: valid — 2 steps, 4 jobs; output out/; models: built-in catalogue',
        '  transcribe  audio.transcribe       2 items  2 listed items',
        '  speak       audio.speech           2 items  chain of transcribe; after transcribe (per item)',
        '  filled from defaults:',
        '    steps.speak.with.lang = "en-us"  (model Kokoro info.defaults.lang)',
        '    steps.speak.with.speed = 1  (model Kokoro info.defaults.speed)',
        '    steps.speak.with.format = "mp3"  (model Kokoro info.defaults.format)',
        '    steps.speak.with.sample_rate = 24000  (model Kokoro info.defaults.sample_rate)',
        '',
      ].join('\n'),
    );
  });

  it('exits 2 with one line per problem on stderr and no stack', async () => {
    const { code, stdout, stderr } = await run(['validate', 'bad.yaml', '--offline']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('bad.yaml:8:14: steps.speak.with.voice: expected string, got number\n');
  });

  it('prints { format_version, ok, errors, warnings, plan, left_out } with --json', async () => {
    const bad = await run(['validate', 'bad.yaml', '--offline', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toEqual({
      format_version: 1,
      ok: false,
      errors: [{ file: 'bad.yaml', line: 8, col: 14, path: 'steps.speak.with.voice', message: 'expected string, got number', code: 'E_WORKFLOW_SCHEMA' }],
      warnings: [],
      plan: null,
      left_out: [],
    });
    const good = await run(['validate', 'good.yaml', '--offline', '--json']);
    const json = JSON.parse(good.stdout) as { ok: boolean; plan: { jobs: number; model_source: unknown; edges: unknown } };
    expect(good.code).toBe(0);
    expect([json.ok, json.plan.jobs, json.plan.model_source, json.plan.edges]).toEqual([
      true,
      4,
      { kind: 'built-in', description: 'built-in catalogue' },
      [{ from: 'transcribe', to: 'speak', kind: 'item', origins: ['chain', 'ref'] }],
    ]);
  });

  it('takes inputs from --inputs and --input', async () => {
    const fromFile = await run(['validate', 'good.yaml', '--offline', '--json', '--inputs', 'in.yaml']);
    expect(JSON.parse(fromFile.stdout).ok).toBe(true);
    const unknown = await run(['validate', 'good.yaml', '--offline', '--input', 'voise=x']);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      'good.yaml:2:1: inputs.voise: unknown input (given by --input voise="x"); declared inputs: voice; did you mean "voice"?\n',
    ]);
  });

  it('reports a missing workflow file as a validation error', async () => {
    const { code, stderr } = await run(['validate', 'missing.yaml']);
    expect([code, stderr]).toEqual([2, 'missing.yaml:1:1: workflow: file not found\n']);
  });

  it('prints at most 10 escaped GitHub annotations, then a notice, when GITHUB_ACTIONS=true', async () => {
    const { code, stdout, stderr } = await run(['validate', 'many,bad:%.yaml', '--offline'], { GITHUB_ACTIONS: 'true' });
    expect(code).toBe(2);
    expect(stderr.trimEnd().split('\n')).toHaveLength(12);
    const annotations = stdout.trimEnd().split('\n');
    expect(annotations).toHaveLength(11);
    expect(annotations[0]).toBe('::error file=many%2Cbad%3A%25.yaml,line=8,col=7,title=E_WORKFLOW_FIELD::steps.s.with["x0%25"]: unknown field "x0%25" for audio.speech; expected one of text, model, lang, speed, format, sample_rate, mode, voice, ref_audio, ref_text, instruct, webhook_url, webhook_secret');
    expect(annotations[10]).toBe('::notice::2 more errors not annotated; see the log');
  });

  it('keeps stdout pure JSON with --json on GitHub Actions (annotations go to stderr)', async () => {
    const { stdout, stderr } = await run(['validate', 'bad.yaml', '--offline', '--json'], { GITHUB_ACTIONS: 'true' });
    expect(JSON.parse(stdout).ok).toBe(false);
    expect(stderr).toBe('::error file=bad.yaml,line=8,col=14,title=E_WORKFLOW_SCHEMA::steps.speak.with.voice: expected string, got number\n');
  });

  it('uses an injected model fetcher unless --offline, and keeps its list as the offline cache', async () => {
    const fetched = [{ name: 'Only', slug: 'Only', inference_types: ['txt2embedding'], info: { limits: {}, features: {}, defaults: {} } }];
    await writeTree(dir, { 'embed.yaml': 'version: 1\nsteps:\n  e:\n    task: text.embed\n    with: { input: hi, model: Only }\n' });
    const validate = async (args: string[]) => {
      const io = createFakeCliIO(dir);
      let exit = -1;
      const program = new Command().exitOverride();
      registerValidateCommand(program, io, (action) => async (...args) => void (exit = await action(...args)), { createModelFetcher: () => async () => fetched });
      await program.parseAsync(['validate', 'embed.yaml', ...args], { from: 'user' });
      return { exit, stdout: io.stdoutText(), stderr: io.stderrText() };
    };
    const live = await validate([]);
    expect([live.exit, live.stdout.split('\n')[0]]).toEqual([0, 'embed.yaml: valid — 1 step, 1 job; output out/; models: service (live model list)']);
    const cached = await validate(['--offline']);
    expect([cached.exit, cached.stdout.split('\n')[0]]).toEqual([0, `embed.yaml: valid — 1 step, 1 job; output out/; models: cache ${join(dir, '.deflow', 'models.json')}`]);
    await rm(join(dir, '.deflow', 'models.json'));
    const offline = await validate(['--offline']);
    expect([offline.exit, offline.stderr]).toEqual([2, 'embed.yaml:5:31: steps.e.with.model: unknown model "Only" in the built-in catalogue; models for text.embed: Bge_M3_FP16\n']);
  });

  it('names every bad item on its own line, up to 100 lines, then counts the rest', async () => {
    const { code, stderr } = await run(['validate', 'scans.yaml', '--offline']);
    expect(code).toBe(2);
    const printed = stderr.trim().split('\n');
    expect(printed).toHaveLength(101);
    expect(printed[0]).toBe('scans.yaml:6:20: steps.read.with.image: scans/s000.png: expected jpg, jpeg, png, gif, bmp, webp, got content of an unrecognised format (item 0)');
    expect(printed[99]).toBe('scans.yaml:6:20: steps.read.with.image: scans/s099.png: expected jpg, jpeg, png, gif, bmp, webp, got content of an unrecognised format (item 99)');
    expect(printed[100]).toBe('... and 5 more problems (105 in all; --json lists every one)');
    const json = await run(['validate', 'scans.yaml', '--offline', '--json']);
    const errors = JSON.parse(json.stdout).errors as { item?: { step: string; index: number } }[];
    expect(errors).toHaveLength(105);
    expect(errors[104]?.item).toEqual({ step: 'read', index: 104 });
  });
});
