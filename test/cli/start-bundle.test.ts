import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

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
