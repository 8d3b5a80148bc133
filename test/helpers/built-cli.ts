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
  /** The package's `bin` of the build, `dist/bin/deflow.js`: it starts the bundled CLI, `dist/bin/deflow.cjs`. */
  readonly main: string;
  /** The CLI as tsc compiled it, before the bundle: `dist/cli/main.js`, one module per source file. */
  readonly unbundled: string;
  /** The build's `dist/` folder (with a trailing slash). */
  readonly dist: string;
  /** esbuild's metafile of the CLI bundle (which modules each chunk holds), when asked for. */
  readonly metafile?: string;
  remove(): Promise<void>;
}

/** Builds the CLI into a temp folder as `npm run build` does (takes a minute on a busy machine). */
export async function buildCliAside(prefix = 'deflow-cli-build-', options: { metafile?: boolean } = {}): Promise<BuiltCli> {
  const build = await mkdtemp(join(tmpdir(), prefix));
  const dist = join(build, 'dist');
  await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', dist], { cwd: root });
  await writeFile(join(build, 'package.json'), '{"type":"module"}\n');
  await symlink(join(root, 'node_modules'), join(build, 'node_modules'));
  // The rest of `npm run build`: the workflow schema's precompiled validators, the bundle and its code cache.
  await promisify(execFile)(process.execPath, [join(root, 'scripts', 'write-validators.mjs'), dist], { cwd: root });
  // (The code cache is made by a demo run against the emulator, which reads schemas/.)
  await symlink(join(root, 'schemas'), join(build, 'schemas'));
  const metafile = options.metafile === true ? join(build, 'bundle-meta.json') : undefined;
  await promisify(execFile)(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs'), dist, ...(metafile === undefined ? [] : ['--metafile', metafile])], { cwd: root });
  return { main: join(dist, 'bin', 'deflow.js'), unbundled: join(dist, 'cli', 'main.js'), dist: `${dist}/`, ...(metafile === undefined ? {} : { metafile }), remove: () => rm(build, { recursive: true, force: true }) };
}
