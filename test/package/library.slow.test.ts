/**
 * The library as a user installs it: the package's dist/ (tsc, as `npm run build` writes it)
 * behind its package.json exports, in a project of its own. docs/library.md's example is
 * compiled there as written, by a strict consumer with no `skipLibCheck`, then run (against
 * the emulator it starts); the main entry's declarations read no bullmq or ioredis file, and
 * `deflow/queue` compiles apart.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** The code block after `<!-- library-example -->` in docs/library.md. */
function docsExample(): string {
  const text = readFileSync(join(root, 'docs', 'library.md'), 'utf8');
  const match = /<!-- library-example -->\s*```ts\n([\s\S]*?)\n```/.exec(text);
  if (match === null) throw new Error('docs/library.md has no ```ts block after <!-- library-example -->');
  return match[1]!;
}

let work: string;
let project: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'deflow-library-'));
  // The package: its package.json, the library's dist (tsc, then the precompiled validators), schemas.
  const pkg = join(work, 'deflow');
  mkdirSync(pkg);
  cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
  await run(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')], { cwd: root });
  symlinkSync(join(root, 'schemas'), join(pkg, 'schemas'));
  symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'));
  await run(process.execPath, [join(root, 'scripts', 'write-validators.mjs'), join(pkg, 'dist')], { cwd: root });
  // The user's project: deflow installed, @types/node, the demo workflow beside it.
  project = join(work, 'project');
  mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
  symlinkSync(pkg, join(project, 'node_modules', 'deflow'));
  symlinkSync(join(root, 'node_modules', '@types', 'node'), join(project, 'node_modules', '@types', 'node'));
  cpSync(join(root, 'workflows'), join(project, 'workflows'), { recursive: true });
  writeFileSync(join(project, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  const strict = { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'], exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: strict, include: ['example.ts'] }));
  writeFileSync(join(project, 'tsconfig.queue.json'), JSON.stringify({ compilerOptions: strict, include: ['queue.ts'] }));
  writeFileSync(join(project, 'example.ts'), `${docsExample()}\n`);
  writeFileSync(join(project, 'queue.ts'), "import { openQueueRun, parseRedisUrl, startQueueWorker } from 'deflow/queue';\nexport const parts = [openQueueRun, parseRedisUrl, startQueueWorker];\n");
}, 240_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** tsc in the project: its exit code, its output and the files it read. */
async function compile(config: string): Promise<{ code: number; output: string; files: string[] }> {
  try {
    const { stdout } = await run(process.execPath, [tsc, '-p', config, '--listFiles'], { cwd: project });
    return { code: 0, output: stdout, files: stdout.split('\n') };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? 1, output: failed.stdout ?? String(error), files: (failed.stdout ?? '').split('\n') };
  }
}

describe('the library, installed', () => {
  it("docs/library.md's example compiles in a strict project without skipLibCheck, and its types read no bullmq or ioredis", async () => {
    const result = await compile('tsconfig.json');
    expect(result.output.split('\n').filter((line) => line.includes('error TS'))).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.files.some((file) => file.endsWith('deflow/dist/index.d.ts'))).toBe(true);
    expect(result.files.filter((file) => /node_modules\/(bullmq|ioredis)\//.test(file))).toEqual([]);
  });

  it('deflow/queue compiles apart, in the same strict project', async () => {
    const result = await compile('tsconfig.queue.json');
    expect(result.output.split('\n').filter((line) => line.includes('error TS'))).toEqual([]);
    expect(result.files.some((file) => file.endsWith('deflow/dist/queue.d.ts'))).toBe(true);
  });

  it("docs/library.md's example runs as written: validate, quote, run and report the demo on the emulator", async () => {
    const { code } = await transform(docsExample(), { loader: 'ts', format: 'esm', target: 'node20' });
    writeFileSync(join(project, 'example.mjs'), code);
    const { stdout } = await run(process.execPath, ['example.mjs'], { cwd: project, env: { ...process.env, DEAPI_API_KEY: '', DEAPI_BASE_URL: '' } });
    expect(stdout).toMatch(/^quote: \$0\.\d{6} \(up to \$0\.\d{6}\)$/m);
    expect(stdout).toMatch(/^done \(exit 0\): 5\/5 done, \$0\.\d{6} spent$/m);
  });
});
