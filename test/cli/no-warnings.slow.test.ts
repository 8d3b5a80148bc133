/**
 * Issue 27, point 10: no command prints a Node warning. A quote of a five-step workflow used to
 * print `MaxListenersExceededWarning: … 11 abort listeners added to [AbortSignal]`: its price
 * requests all waited on the rate governor with one shared signal. The built CLI runs here as a
 * user runs it, with `--trace-warnings` in NODE_OPTIONS, against an emulator over HTTP; standard
 * error must hold no warning of any kind.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3 } from '../../src/emulator/media/index.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { useEmulator } from '../helpers/emulator-http.js';

let cli: BuiltCli;

beforeAll(async () => {
  cli = await buildCliAside('deflow-warnings-build-');
}, 240_000);

afterAll(async () => {
  await cli?.remove();
});

const scan = readFileSync(fileURLToPath(new URL('../../workflows/media/scans/notes.png', import.meta.url)));

/** Five steps over eight clips and eight scans: well over ten price requests in flight at once. */
const FIVE_STEPS = yaml(
  'version: 1',
  'name: five',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "clips/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
  '  speak:',
  '    task: audio.speech',
  '    for_each: transcribe',
  '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
  '  embed:',
  '    task: text.embed',
  '    for_each: transcribe',
  '    with: { input: "${{ steps.transcribe.text }}", model: Bge_M3_FP16 }',
  '  read:',
  '    task: image.ocr',
  '    for_each: { glob: "scans/*.png" }',
  '    with: { image: "${{ item.path }}", model: Nanonets_Ocr_S_F16 }',
  '  say:',
  '    task: audio.speech',
  '    for_each: read',
  '    with: { text: "${{ steps.read.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
);

function workspace(): Promise<string> {
  const files: Record<string, string | Buffer> = { 'five.yaml': FIVE_STEPS };
  for (let i = 0; i < 8; i++) {
    files[`clips/c${i}.mp3`] = makeMp3(2 + i * 0.05);
    // Each scan differs by a trailing byte, so each is its own price request.
    files[`scans/s${i}.png`] = Buffer.concat([scan, Buffer.from([i])]);
  }
  return useWorkspace(files);
}

async function deflow(dir: string, emulator: RunningEmulator, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: '--trace-warnings', DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api };
  const child = spawn(process.execPath, [cli.main, ...args], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

describe('the built CLI prints no Node warning', () => {
  it('validate, quote, run (with and without a budget), status and report of a five-step workflow', async () => {
    const dir = await workspace();
    const emulator = await useEmulator({ config: { balance: 100, jobs: { duration_ms: 100, scale_by_input: false }, rate_limits: { jobs_status: null } } });
    const commands: (readonly string[])[] = [
      ['validate', 'five.yaml'],
      ['quote', 'five.yaml', '--no-quote-cache'],
      ['run', 'five.yaml', '--max-cost', '1', '--allow-unpriced', '--no-cache'],
      ['run', 'five.yaml', '--no-cache'],
      ['status', 'five.yaml'],
      ['report', 'five.yaml', '--html', 'report.html'],
    ];
    for (const args of commands) {
      const { code, stderr } = await deflow(dir, emulator, args);
      expect({ args, code, warnings: stderr.split('\n').filter((line) => /Warning|\(node:\d+\)/.test(line)) }).toEqual({ args, code: 0, warnings: [] });
    }
  }, 180_000);
});
