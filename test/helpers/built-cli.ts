/**
 * The CLI built aside (its own `dist/` in a temp folder), for tests that run it as a child
 * process: no other test's `dist/` is touched. `node_modules` and `schemas` are linked in.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = new URL('../../', import.meta.url).pathname;

export interface BuiltCli {
  /** The package's `bin` of the build: the bundled CLI, `dist/bin/deflow.js`. */
  readonly main: string;
  /** The build's `dist/` folder (with a trailing slash). */
  readonly dist: string;
  /** esbuild's metafile of the bundle: which source files each file of `dist/bin/` holds. */
  readonly metafile: string;
  remove(): Promise<void>;
}

/** Builds the CLI into a temp folder as `npm run build` does (takes a minute on a busy machine). */
export async function buildCliAside(prefix = 'deflow-cli-build-'): Promise<BuiltCli> {
  const build = await mkdtemp(join(tmpdir(), prefix));
  const dist = join(build, 'dist');
  await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', dist], { cwd: root });
  await writeFile(join(build, 'package.json'), '{"type":"module"}\n');
  await symlink(join(root, 'node_modules'), join(build, 'node_modules'));
  // The rest of `npm run build`: the workflow schema's precompiled validators, and the bundle.
  await promisify(execFile)(process.execPath, [join(root, 'scripts', 'write-validators.mjs'), dist], { cwd: root });
  const metafile = join(build, 'bundle-meta.json');
  await promisify(execFile)(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs'), dist, '--metafile', metafile], { cwd: root });
  await symlink(join(root, 'schemas'), join(build, 'schemas'));
  return { main: join(dist, 'bin', 'deflow.js'), dist: `${dist}/`, metafile, remove: () => rm(build, { recursive: true, force: true }) };
}
