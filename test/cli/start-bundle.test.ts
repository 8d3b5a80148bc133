import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { EAGER_RESET_GLOBAL } from '../../src/cli/start-bundle.js';

const root = new URL('../../', import.meta.url).pathname;

/** A small CommonJS bundle, as esbuild writes one: a hashbang, requires, exports. */
const BUNDLE = `#!/usr/bin/env node
"use strict";
const { basename } = require('node:path');
function twice(n) { return n * 2; }
exports.name = basename(__filename);
exports.dir = __dirname;
exports.twice = twice;
exports.sep = () => Promise.resolve().then(() => require('node:path').sep);
`;

/**
 * Each load is a process of its own, as each start of the CLI is: within one process V8 keeps
 * compiled scripts in memory and would never look at the cache again.
 */
const DRIVER = `import { loadBundle } from './start-bundle.mjs';
const [bundle, mode, write] = process.argv.slice(2);
const loaded = loadBundle(bundle, mode === '-' ? undefined : mode);
const out = { verdict: loaded.verdict, cacheFile: loaded.cacheFile, twice: loaded.exports.twice(21), name: loaded.exports.name, dir: loaded.exports.dir, sep: await loaded.exports.sep() };
if (write === 'write') out.written = loaded.writeCache();
console.log(JSON.stringify(out));
`;

interface Load {
  verdict: string;
  cacheFile: string;
  twice: number;
  name: string;
  dir: string;
  sep: string;
  written?: boolean;
}

let tools: string;
let dir: string;
let bundle: string;
beforeAll(async () => {
  tools = await mkdtemp(join(tmpdir(), 'deflow-start-bundle-tools-'));
  await build({ entryPoints: [join(root, 'src', 'cli', 'start-bundle.ts')], outfile: join(tools, 'start-bundle.mjs'), bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
  await writeFile(join(tools, 'driver.mjs'), DRIVER);
});
afterAll(() => rm(tools, { recursive: true, force: true }));
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-start-bundle-'));
  bundle = join(dir, 'deflow.cjs');
  await writeFile(bundle, BUNDLE);
  return () => rm(dir, { recursive: true, force: true });
});

async function load(mode: 'off' | undefined, write: boolean): Promise<Load> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(tools, 'driver.mjs'), bundle, mode ?? '-', write ? 'write' : '-']);
  return JSON.parse(stdout) as Load;
}

describe('starting the CLI bundle with its code cache', () => {
  it('runs the bundle as a CommonJS module: require, exports, __filename, __dirname and a hashbang line', async () => {
    const loaded = await load(undefined, false);
    expect(loaded).toMatchObject({ name: 'deflow.cjs', dir, twice: 42, sep: '/' });
  });

  it('finds no cache at first, writes one for its V8 and architecture, and the next start uses it', async () => {
    const first = await load(undefined, true);
    expect(first).toMatchObject({ verdict: 'missing', written: true });
    expect(first.cacheFile).toMatch(new RegExp(`^${dir}/code-cache/${process.versions.v8.replace(/\./g, '\\.')}-${process.arch}-[0-9a-f]{16}\\.bin$`));
    expect(existsSync(first.cacheFile)).toBe(true);
    expect(await load(undefined, false)).toMatchObject({ verdict: 'used', twice: 42 });
  });

  it('a cache V8 refuses (garbage, or made for an older bundle) is reported rejected, and the bundle runs as usual', async () => {
    const { cacheFile } = await load(undefined, true);
    await writeFile(cacheFile, 'not a code cache at all');
    expect(await load(undefined, true)).toMatchObject({ verdict: 'rejected', twice: 42, written: true });
    expect(await load(undefined, false)).toMatchObject({ verdict: 'used' });
    // The bundle rebuilt, another length, with the old cache copied to the new bundle's name.
    await writeFile(bundle, `${BUNDLE}exports.more = 1;\n`);
    const { cacheFile: rebuiltCache } = await load('off', false);
    await copyFile(cacheFile, rebuiltCache);
    expect(await load(undefined, false)).toMatchObject({ verdict: 'rejected', twice: 42 });
  });

  it('a bundle changed at the same length does not take the old cache (V8 would: it checks the length only)', async () => {
    const first = await load(undefined, true);
    await writeFile(bundle, BUNDLE.replace('n * 2', 'n + 3'));
    const changed = await load(undefined, false);
    expect(changed.cacheFile).not.toBe(first.cacheFile);
    expect(changed).toMatchObject({ verdict: 'missing', twice: 24 });
  });

  it('off: reads no cache (and the bin writes none)', async () => {
    const { cacheFile } = await load(undefined, true);
    const before = await readFile(cacheFile);
    expect(await load('off', false)).toMatchObject({ verdict: 'off', twice: 42 });
    expect(await readFile(cacheFile)).toEqual(before);
  });

  it('a cache folder that cannot be made: nothing written, no error, the bundle runs', async () => {
    await writeFile(join(dir, 'code-cache'), 'a file where the folder would be');
    expect(await load(undefined, true)).toMatchObject({ verdict: 'missing', written: false, twice: 42 });
  });
});

/** Starts `bundle` as the bin does (startBundle), with its temp folder in `dir`; its stdout, stderr. */
async function start(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  await writeFile(join(tools, 'bin.mjs'), "import { startBundle } from './start-bundle.mjs';\nstartBundle(process.argv[2]);\n");
  const clean = { ...process.env };
  for (const name of ['NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE', 'NODE_DEBUG_NATIVE', 'DEFLOW_CODE_CACHE']) delete clean[name];
  return promisify(execFile)(process.execPath, [join(tools, 'bin.mjs'), bundle], { env: { ...clean, TMPDIR: dir, ...env } });
}

const nodeHasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe("the bin's cache: Node's own compile cache where Node has it (≥ 22.1), else the vm.Script code cache", () => {

  it(`on this Node (${process.version}) takes the ${nodeHasCompileCache ? "module.enableCompileCache() path: no code-cache folder, Node's cache accepted at the next start" : 'vm.Script path: a code cache written beside the bundle and used at the next start'}`, async () => {
    await writeFile(bundle, `${BUNDLE}exports.main = async () => { console.log(JSON.stringify({ twice: twice(21), name: exports.name })); };\n`);
    const first = await start({ DEFLOW_CODE_CACHE: 'verbose' });
    expect(JSON.parse(first.stdout)).toEqual({ twice: 42, name: 'deflow.cjs' });
    if (nodeHasCompileCache) {
      expect(first.stderr).toMatch(new RegExp(`^deflow: compile cache enabled \\(${dir}/node-compile-cache\\)$`, 'm'));
      expect(existsSync(join(dir, 'code-cache'))).toBe(false);
      const second = await start({ NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
      expect(second.stderr).toMatch(/cache for .*deflow\.cjs was accepted/);
    } else {
      expect(first.stderr).toMatch(/^deflow: code cache missing \(.*\/code-cache\/.+\.bin\)$/m);
      expect(first.stderr).toMatch(/^deflow: code cache written/m);
      expect((await start({ DEFLOW_CODE_CACHE: 'verbose' })).stderr).toMatch(/^deflow: code cache used/m);
    }
  });

  /** A function of 400 statements, called only once the bundle runs: lazily compiled, its bytecode is not in the cache. */
  const LATE = `function late(n) {\n${Array.from({ length: 400 }, (_, i) => `  n = (n * ${i + 3} + ${i}) % 1000003;`).join('\n')}\n  return n;\n}\n`;

  it.skipIf(!nodeHasCompileCache)("Node's compile cache holds every function of the bundle's scripts (compiled eagerly), and only those: a file they require outside the folder is compiled lazily", async () => {
    const outside = await mkdtemp(join(tmpdir(), 'deflow-start-bundle-outside-'));
    onTestFinished(() => rm(outside, { recursive: true, force: true }));
    await writeFile(join(outside, 'helper.cjs'), `"use strict";\n${LATE}exports.late = late;\n`);
    // The build's first statement of each script turns lazy compiling back on (scripts/bundle-cli.mjs).
    await writeFile(bundle, `"use strict";globalThis.${EAGER_RESET_GLOBAL}?.();\n${LATE}const helper = require(${JSON.stringify(join(outside, 'helper.cjs'))});\nexports.main = async () => { console.log(late(7) === helper.late(7)); };\n`);
    expect((await start({})).stdout.trim()).toBe('true');
    const { stdout, stderr } = await start({ NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(stdout.trim()).toBe('true');
    const cacheSize = (file: string): number => Number(new RegExp(`for CommonJS ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.\\.\\.\\[\\d+ \\d+ (\\d+) `).exec(stderr)?.[1]);
    const bundled = cacheSize(bundle);
    const helper = cacheSize(join(outside, 'helper.cjs'));
    expect(stderr).toMatch(/cache for CommonJS .*deflow\.cjs was accepted/);
    expect(helper).toBeGreaterThan(0);
    // The same function's bytecode is several times its lazy cache (the top level and the function's position only).
    expect(bundled).toBeGreaterThan(4 * helper);
  });

  it.skipIf(!nodeHasCompileCache)('compiles eagerly only where the cache keeps it: not with Node\'s cache disabled, off, or unable to make its folder', async () => {
    // V8's own view of a function not called yet (--allow-natives-syntax): bit 7 of its status
    // says it has bytecode ("interpreted"), which only an eager compile gives it before its first call.
    await writeFile(bundle, `"use strict";globalThis.${EAGER_RESET_GLOBAL}?.();\n${LATE}exports.main = async () => { console.log((%GetOptimizationStatus(late) & (1 << 7)) !== 0 ? 'compiled' : 'lazy'); };\n`);
    await writeFile(join(tools, 'bin.mjs'), "import { startBundle } from './start-bundle.mjs';\nstartBundle(process.argv[2]);\n");
    const clean = { ...process.env };
    for (const name of ['NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE', 'NODE_DEBUG_NATIVE', 'DEFLOW_CODE_CACHE']) delete clean[name];
    const late = async (env: Record<string, string>, tmp = dir): Promise<string> =>
      (await promisify(execFile)(process.execPath, ['--allow-natives-syntax', join(tools, 'bin.mjs'), bundle], { env: { ...clean, TMPDIR: tmp, ...env } })).stdout.trim();
    expect(await late({})).toBe('compiled');
    expect(await late({ NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('lazy');
    expect(await late({ DEFLOW_CODE_CACHE: 'off' })).toBe('lazy');
    const blocked = await mkdtemp(join(tmpdir(), 'deflow-start-bundle-blocked-'));
    onTestFinished(() => rm(blocked, { recursive: true, force: true }));
    await writeFile(join(blocked, 'node-compile-cache'), 'a file where the folder would be');
    expect(await late({}, blocked)).toBe('lazy');
  });

  it('off: neither cache', async () => {
    await writeFile(bundle, `${BUNDLE}exports.main = async () => { console.log(twice(2)); };\n`);
    const off = await start({ DEFLOW_CODE_CACHE: 'off' });
    expect(off.stdout.trim()).toBe('4');
    expect(existsSync(join(dir, 'code-cache'))).toBe(false);
    expect(existsSync(join(dir, 'node-compile-cache'))).toBe(false);
  });
});
