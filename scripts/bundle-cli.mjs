// Part of `npm run build`, after tsc and write-validators.mjs: bundles the CLI (the compiled
// dist/cli/main.js and all it imports, npm packages included) into dist/bin/, the package's
// `bin`. A start then reads a few files instead of ~400 modules resolved one by one (most of
// `deflow validate`'s time was module loading). Commands stay lazy: each `import()` of a
// command's action, or of a heavy library, is a chunk of its own, loaded when first needed.
// `node scripts/bundle-cli.mjs [DIST] [--metafile FILE]`: DIST is the build's output folder
// (default dist/); FILE receives esbuild's metafile (which source files each chunk holds), for
// test/cli/light-start.slow.test.ts.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const args = process.argv.slice(2);
const metaAt = args.indexOf('--metafile');
const metafile = metaAt === -1 ? undefined : args.splice(metaAt, 2)[1];
const dist = resolve(args[0] ?? new URL('../dist', import.meta.url).pathname);
const out = resolve(dist, 'bin');
rmSync(out, { recursive: true, force: true });

const result = await build({
  entryPoints: { deflow: resolve(dist, 'cli', 'main.js') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Queue mode's packages find native addons and files beside their own modules: loaded from
  // node_modules as they are (only `--queue` and `deflow worker` load them).
  external: ['bullmq', 'ioredis'],
  // CommonJS packages inside an ES module bundle call require() for Node's built-ins.
  banner: { js: "import { createRequire as __deflowCreateRequire } from 'node:module'; const require = __deflowCreateRequire(import.meta.url);" },
  // Names as written (error names, stack traces), even where two modules' names collide.
  keepNames: true,
  sourcemap: 'linked',
  legalComments: 'none',
  metafile: metafile !== undefined,
  logLevel: 'warning',
});
if (metafile !== undefined) writeFileSync(metafile, JSON.stringify(result.metafile));

// check-schema.ts loads the precompiled validators from a folder beside its own module.
const schemaDir = resolve(dist, 'workflow', 'schema');
const { STANDALONE_VALIDATORS_DIR } = await import(pathToFileURL(resolve(schemaDir, 'standalone-validator-files.js')).href);
cpSync(resolve(schemaDir, STANDALONE_VALIDATORS_DIR), resolve(out, STANDALONE_VALIDATORS_DIR), { recursive: true });
