import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';

const root = new URL('../../', import.meta.url).pathname;
const trace = join(root, 'test', 'helpers', 'module-trace.mjs');

/** Packages that cost a start dearly, and what needs them. */
const HEAVY = ['undici', 'ajv', 'listr2', 'bullmq', 'ioredis', 'mp4box', 'music-metadata', 'file-type', 'image-size', 'form-data', 'fast-glob', 'csv-parse', 'yaml', '@actions/expressions', 'busboy'];

let cli: BuiltCli;
let traces: string;

beforeAll(async () => {
  cli = await buildCliAside('deflow-light-start-');
  traces = await mkdtemp(join(tmpdir(), 'deflow-light-start-trace-'));
}, 180_000);
afterAll(async () => {
  await cli?.remove();
  // A build that timed out leaves no trace folder.
  if (traces) await rm(traces, { recursive: true, force: true });
});

/**
 * The modules `deflow ARGS` loads: npm packages by name, and the folders of dist/ it reaches.
 * The bin is a bundle: each of its files that the process loaded stands for the modules
 * esbuild put in it (its metafile says which), so what a command loads is still told module
 * by module, as it was before the bundle.
 */
async function modulesOf(name: string, args: readonly string[]): Promise<{ packages: Set<string>; layers: Set<string>; bundleFiles: number }> {
  const out = join(traces, `${name}.txt`);
  await promisify(execFile)(process.execPath, ['--import', trace, cli.main, ...args], { cwd: root, env: { ...process.env, MODULE_TRACE_OUT: out, DEAPI_API_KEY: '' } });
  const meta = JSON.parse(await readFile(cli.metafile, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  const bundled = new Map(Object.entries(meta.outputs).map(([file, { inputs }]) => [resolve(root, file), Object.keys(inputs).map((input) => resolve(root, input))]));
  const traced = (await readFile(out, 'utf8')).split('\n').map((line) => line.replace(/^file:\/\//, ''));
  const lines = traced.flatMap((file) => bundled.get(file) ?? [file]);
  // ajv's runtime helpers (string length, deep equality), which compiled validators call, are not ajv.
  const packages = new Set(lines.filter((line) => !/node_modules\/ajv\/dist\/runtime\//.test(line)).flatMap((line) => [...line.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]!).slice(-1)));
  // The bundle's copy of the precompiled workflow validators (bin/validators/) is the workflow layer's.
  const layers = new Set(lines.flatMap((line) => (line.startsWith(cli.dist) ? [line.slice(cli.dist.length).replace(/^bin\/validators\//, 'workflow/').split('/')[0]!] : [])));
  return { packages, layers, bundleFiles: traced.filter((file) => bundled.has(file)).length };
}

describe('a light start', () => {
  it('--help loads commander and the CLI definitions only: no heavy package, no layer but cli and common', async () => {
    const { packages, layers, bundleFiles } = await modulesOf('help', ['--help']);
    expect(bundleFiles).toBeGreaterThan(0); // the bin is the bundle
    expect([...packages]).toEqual(['commander']);
    expect([...layers].sort()).toEqual(['cli', 'common']);
  });

  it('validate --offline loads the precompiled schema, not ajv, and nothing of the client, engine, report or emulator', async () => {
    const { packages, layers } = await modulesOf('validate', ['validate', 'workflows/demo.yaml', '--offline']);
    expect(packages.has('fast-deep-equal')).toBe(true); // the precompiled validators ran
    // The demo lists its clips with a glob and has local files to sniff: those two are its own.
    expect(HEAVY.filter((name) => packages.has(name)).sort()).toEqual(['@actions/expressions', 'fast-glob', 'file-type', 'yaml']);
    expect([...layers].sort()).toEqual(['cli', 'common', 'service', 'workflow']);
  });
});
