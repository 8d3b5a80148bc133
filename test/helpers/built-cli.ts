/**
 * The CLI compiled aside (its own `dist/` in a temp folder), for tests that run it as a child
 * process: no other test's `dist/` is touched. `node_modules` and `schemas` are linked in.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = new URL('../../', import.meta.url).pathname;

export interface BuiltCli {
  /** `dist/cli/main.js` of the build. */
  readonly main: string;
  remove(): Promise<void>;
}

/** Builds the CLI into a temp folder as `npm run build` does (takes a minute on a busy machine). */
export async function buildCliAside(prefix = 'deflow-cli-build-'): Promise<BuiltCli> {
  const build = await mkdtemp(join(tmpdir(), prefix));
  await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', join(build, 'dist')], { cwd: root });
  await writeFile(join(build, 'package.json'), '{"type":"module"}\n');
  await symlink(join(root, 'node_modules'), join(build, 'node_modules'));
  // The rest of `npm run build`: the workflow schema's precompiled validators.
  await promisify(execFile)(process.execPath, [join(root, 'scripts', 'write-validators.mjs'), join(build, 'dist')], { cwd: root });
  await symlink(join(root, 'schemas'), join(build, 'schemas'));
  return { main: join(build, 'dist', 'cli', 'main.js'), remove: () => rm(build, { recursive: true, force: true }) };
}
