/**
 * action/dist/ is committed (the runner runs it as it is): it must be what a fresh build of the
 * source writes (`npm run build`, then scripts/build-action.mjs), byte for byte.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';

const root = new URL('../../', import.meta.url).pathname;
let cli: BuiltCli;
let fresh: string;

beforeAll(async () => {
  cli = await buildCliAside('deflow-action-dist-');
  fresh = join(cli.dist, '..', 'action-dist');
  await promisify(execFile)(process.execPath, [join(root, 'scripts', 'build-action.mjs'), cli.dist, fresh], { cwd: root });
}, 240_000);
afterAll(() => cli?.remove());

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe('action/dist/', () => {
  it('is what a fresh build of the source writes (run `npm run build && npm run build:action` and commit it)', () => {
    const committed = join(root, 'action', 'dist');
    expect(files(committed)).toEqual(files(fresh));
    const differing = files(fresh).filter((file) => !readFileSync(join(fresh, file)).equals(readFileSync(join(committed, file))));
    expect(differing, 'files of action/dist/ that differ from a fresh build').toEqual([]);
  });

  it('requires nothing from node_modules: only Node built-ins and its own files', () => {
    const committed = join(root, 'action', 'dist');
    const outside = files(committed)
      .filter((file) => /\.(c|m)?js$/.test(file))
      .flatMap((file) => {
        const text = readFileSync(join(committed, file), 'utf8');
        // require("x") not inside a string; in the ES modules also `import … from "x"` (a whole statement).
        const specs = [...text.matchAll(/(?<![\w$.'"`])require\(\s*["']([^"'$]+)["']\s*\)/g)].map((m) => m[1]!);
        if (!file.endsWith('.cjs')) specs.push(...[...text.matchAll(/(?:^|[;}])\s*import\s*(?:[\w$*{},\s]+from\s*)?["']([^"']+)["']/g)].map((m) => m[1]!));
        return specs.map((spec) => [file, spec] as const);
      })
      .filter(([, spec]) => !spec.startsWith('node:') && !spec.startsWith('.') && !isBuiltin(spec));
    // Queue mode's packages (bullmq, ioredis) load native addons and stay outside the bundle; the action never runs --queue.
    expect(outside.filter(([, spec]) => spec !== 'bullmq' && spec !== 'ioredis')).toEqual([]);
  });
});

function isBuiltin(spec: string): boolean {
  return builtinModules.includes(spec);
}
