import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as nodeModule from 'node:module';
import { basename, join } from 'node:path';
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
  cli = await buildCliAside('deflow-light-start-', { metafile: true });
  traces = await mkdtemp(join(tmpdir(), 'deflow-light-start-trace-'));
}, 180_000);
afterAll(async () => {
  await cli?.remove();
  // A build that timed out leaves no trace folder.
  if (traces) await rm(traces, { recursive: true, force: true });
});

/**
 * The modules `deflow ARGS` loads, run from the build before it is bundled (dist/cli/main.js,
 * one module per source file): npm packages by name, and the folders of dist/ it reaches. The
 * bundle keeps this shape: a module that is only `import()`ed runs when it is first needed.
 */
async function modulesOf(name: string, args: readonly string[]): Promise<{ packages: Set<string>; layers: Set<string> }> {
  const out = join(traces, `${name}.txt`);
  await promisify(execFile)(process.execPath, ['--import', trace, cli.unbundled, ...args], { cwd: root, env: { ...process.env, MODULE_TRACE_OUT: out, DEAPI_API_KEY: '' } });
  const lines = (await readFile(out, 'utf8')).split('\n').map((line) => line.replace(/^file:\/\//, ''));
  // ajv's runtime helpers (string length, deep equality), which compiled validators call, are not ajv.
  const packages = new Set(lines.filter((line) => !/node_modules\/ajv\/dist\/runtime\//.test(line)).flatMap((line) => [...line.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]!).slice(-1)));
  const layers = new Set(lines.flatMap((line) => (line.startsWith(cli.dist) ? [line.slice(cli.dist.length).split('/')[0]!] : [])));
  return { packages, layers };
}

describe('a light start', () => {
  it('--help loads commander and the CLI definitions only: no heavy package, no layer but cli and common', async () => {
    const { packages, layers } = await modulesOf('help', ['--help']);
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

/**
 * The chunks of the bundle that `deflow ARGS` requires (the bin, dist/bin/deflow.js, as users
 * start it), each with the modules esbuild put in it (from the build's metafile).
 */
async function chunksOf(name: string, args: readonly string[]): Promise<{ files: string[]; bytes: number; modules: string[] }> {
  const out = join(traces, `bundle-${name}.txt`);
  await promisify(execFile)(process.execPath, ['--import', trace, cli.main, ...args], { cwd: root, env: { ...process.env, MODULE_TRACE_OUT: out, DEAPI_API_KEY: '' } });
  const bin = join(cli.dist, 'bin');
  // The entry, deflow.cjs, is compiled by the bin itself (with its code cache) where Node lacks its own cache: no require of it to trace.
  const required = (await readFile(out, 'utf8')).split('\n').filter((line) => line.startsWith(`${bin}/`) && line.endsWith('.cjs') && !line.includes('/validators/'));
  const files = [...new Set(['deflow.cjs', ...required.map((line) => basename(line))])];
  const meta = JSON.parse(await readFile(cli.metafile!, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  const inputsOf = new Map(Object.entries(meta.outputs).map(([output, { inputs }]) => [basename(output).replace(/\.js$/, '.cjs'), Object.keys(inputs)]));
  const bytes = (await Promise.all(files.map((file) => stat(join(bin, file))))).reduce((sum, s) => sum + s.size, 0);
  return { files, bytes, modules: files.flatMap((file) => inputsOf.get(file) ?? [`(no such chunk in the metafile: ${file})`]) };
}

/** What a module of the engine, report, emulator, OpenTelemetry, prom-client or queue looks like in the metafile. */
const NOT_FOR_VALIDATE = /^dist\/(engine|report|emulator)\/|node_modules\/(@opentelemetry|prom-client|bullmq|ioredis)\//;

/** Node's built-in modules `deflow ARGS` loads, as the bin starts (Node's own list of what it compiled). */
async function builtinsOf(args: readonly string[]): Promise<string[]> {
  const list = join(traces, 'builtins.cjs');
  await writeFile(list, `process.on('exit', () => process.stderr.write('BUILTINS ' + process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join(' ') + '\\n'));\n`);
  // stdin from /dev/null, as in CI and cron: a file stream, were it made.
  const { stderr } = spawnSync(process.execPath, ['--require', list, cli.main, ...args], { cwd: root, env: { ...process.env, DEAPI_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  return /^BUILTINS (.*)$/m.exec(stderr)?.[1]?.split(' ') ?? [];
}

describe('a start compiles only the built-ins it uses', () => {
  it('the bin is CommonJS (no ES module loader), and --help and validate load no node:zlib, nor node:crypto where Node keeps the compile cache (the vm.Script cache is named by a digest)', async () => {
    const unwanted = ['zlib', 'internal/modules/esm/initialize_import_meta', ...(nodeHasCompileCache ? ['crypto'] : [])];
    expect(JSON.parse(await readFile(join(cli.dist, 'bin', 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    for (const args of [['--help'], ['validate', 'workflows/demo.yaml', '--offline']]) {
      const builtins = await builtinsOf(args);
      expect(builtins.length, args.join(' ')).toBeGreaterThan(10);
      expect(builtins.filter((name) => unwanted.includes(name)), args.join(' ')).toEqual([]);
    }
  });

  it('--help never makes stdin (a file stream on /dev/null would compile fs/promises and readline) nor anything of fs/promises', async () => {
    const builtins = await builtinsOf(['--help']);
    expect(builtins.filter((name) => ['internal/fs/promises', 'internal/readline/interface', 'internal/fs/streams'].includes(name))).toEqual([]);
  });

  it('validate of the demo (its workflow, .env files, clips listed by a glob and sniffed) compiles nothing of fs/promises: node:fs callbacks read them', async () => {
    const builtins = await builtinsOf(['validate', 'workflows/demo.yaml', '--offline']);
    expect(builtins.length).toBeGreaterThan(10);
    expect(builtins.filter((name) => ['fs/promises', 'internal/fs/promises', 'internal/readline/interface'].includes(name))).toEqual([]);
  });
});

describe('the bundle is split: a command loads the chunks it runs', () => {
  it("--help and --version load the entry and the command tree: under a tenth of the bundle, no command's action", async () => {
    const bin = join(cli.dist, 'bin');
    const all = (await readdir(bin)).filter((file) => file.endsWith('.cjs'));
    const total = (await Promise.all(all.map((file) => stat(join(bin, file))))).reduce((sum, s) => sum + s.size, 0);
    for (const args of [['--help'], ['--version']]) {
      const { files, bytes, modules } = await chunksOf(args[0]!.slice(2), args);
      expect(files.length).toBeGreaterThan(1);
      expect(bytes).toBeLessThan(total / 10);
      expect(modules.filter((module) => /^dist\/cli\/actions\/(?:[\w-]+\/)?[\w-]+-action\.js$/.test(module) || NOT_FOR_VALIDATE.test(module))).toEqual([]);
      expect(modules.some((module) => module.includes('node_modules/commander/'))).toBe(true);
    }
  });

  it('validate of the demo loads its action and the workflow layer, and no engine, report, emulator, OpenTelemetry, prom-client or queue module', async () => {
    const { modules } = await chunksOf('validate', ['validate', 'workflows/demo.yaml', '--offline']);
    expect(modules).toContain('dist/cli/actions/plan/validate-action.js');
    expect(modules.some((module) => module.startsWith('dist/workflow/'))).toBe(true);
    expect(modules.filter((module) => NOT_FOR_VALIDATE.test(module))).toEqual([]);
  });
});

describe('observability costs nothing when off', () => {
  it('a run without tracing or metrics flags loads no OpenTelemetry module and no prom-client; --trace-file loads them', async () => {
    const args = (extra: string[]) => ['run', 'workflows/demo.yaml', '--emulator', '--quiet', '--state-dir', join(traces, `state-${extra.length}`), '--output', join(traces, `out-${extra.length}`), ...extra];
    const off = await modulesOf('run-off', args([]));
    expect([...off.packages].filter((name) => name.startsWith('@opentelemetry/') || name === 'prom-client')).toEqual([]);
    const on = await modulesOf('run-on', args(['--trace-file', join(traces, 'spans.jsonl'), '--metrics-file', join(traces, 'run.prom')]));
    expect(on.packages.has('@opentelemetry/sdk-trace-base')).toBe(true);
    expect(on.packages.has('prom-client')).toBe(true);
  });
});

/** Where Node has its own compile cache (≥ 22.1) the bin uses that instead (start-bundle.test.ts). */
const nodeHasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe.skipIf(nodeHasCompileCache)("the bin's code cache (a Node before 22.1)", () => {
  const start = async (args: readonly string[], mode: string): Promise<{ stdout: string; stderr: string }> =>
    promisify(execFile)(process.execPath, [cli.main, ...args], { cwd: root, env: { ...process.env, DEAPI_API_KEY: '', DEFLOW_CODE_CACHE: mode } });

  it('a fresh build ships a code cache that this Node accepts', async () => {
    const { stdout, stderr } = await start(['--version'], 'verbose');
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(stderr).toMatch(/^deflow: code cache used \(.*\/bin\/code-cache\/.*\.bin\)$/m);
  });

  it("a cache V8 refuses: the same output, a new cache written at exit, and used by the next start", async () => {
    const entryCache = /^deflow: code cache used \((.*)\)$/m.exec((await start(['--version'], 'verbose')).stderr)?.[1];
    expect(entryCache).toBeDefined();
    await writeFile(entryCache!, 'garbage, not a code cache');
    const args = ['validate', 'workflows/demo.yaml', '--offline'];
    const refused = await start(args, 'verbose');
    expect(refused.stderr).toMatch(/code cache rejected/);
    expect(refused.stderr).toContain(`code cache written (${entryCache!})`);
    expect(refused.stdout).toBe((await start(args, 'off')).stdout);
    expect((await start(args, 'verbose')).stderr).toMatch(/code cache used/);
  });
});
