// Part of `npm run build`, after tsc and write-validators.mjs: bundles the CLI (the compiled
// dist/cli/main.js and all it imports, npm packages included) into one CommonJS script,
// dist/bin/deflow.cjs, and writes V8's code cache of it; the package's `bin`, dist/bin/deflow.js,
// is src/cli/bin.ts bundled, which starts that script with that cache (see start-bundle.ts for
// why: Node 20 keeps no code cache of ES modules). Commands and heavy libraries stay lazy: an
// `import()` of a bundled module runs that module when it is first needed.
// `node scripts/bundle-cli.mjs [DIST] [--metafile FILE]`: DIST is the build's output folder
// (default dist/); FILE receives esbuild's metafile of the CLI bundle.
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const args = process.argv.slice(2);
const metaAt = args.indexOf('--metafile');
const metafile = metaAt === -1 ? undefined : args.splice(metaAt, 2)[1];
const dist = resolve(args[0] ?? fileURLToPath(new URL('../dist', import.meta.url)));
const out = resolve(dist, 'bin');
rmSync(out, { recursive: true, force: true });

// Paths in the output (comments, module keys) relative to the build's root, wherever it is: a
// build writes the same bytes in any folder (action/dist/ is compared with a fresh build).
// The repository's tsconfig.json (its strict mode: "use strict" in the bundle) whatever folder
// holds the build.
const absWorkingDir = resolve(dist, '..');
const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
// OpenTelemetry's OTLP exporter loads Node's http/https with import(), which esbuild leaves as
// is: turned into a require of the built-in (the same module, loaded when first used).
const builtinImportsAsRequire = {
  name: 'builtin-imports-as-require',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]node_modules[\\/]@opentelemetry[\\/].*\.js$/ }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      return { contents: source.replace(/\bimport\((['"])((?:node:)?[a-z_]+)\1\)/g, (_, q, name) => `Promise.resolve().then(() => require(${q}${name}${q}))`), loader: 'js' };
    });
  },
};


const result = await build({
  absWorkingDir,
  tsconfig,
  entryPoints: [resolve(dist, 'cli', 'main.js')],
  outfile: resolve(out, 'deflow.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Queue mode's packages find native addons and files beside their own modules: loaded from
  // node_modules as they are (only `--queue` and `deflow worker` load them).
  external: ['bullmq', 'ioredis'],
  plugins: [builtinImportsAsRequire],
  // Modules that find files beside themselves (the precompiled validators, the emulator's
  // package root) see the bundle's own URL, as they saw their chunk's in an ES module bundle.
  define: { 'import.meta.url': '__deflowImportMetaUrl' },
  banner: { js: "var __deflowImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  // Smaller source is less to read and hash at each start; names stay as written (error
  // names, stack traces), even where two modules' names collide.
  minify: true,
  keepNames: true,
  // The map stays in dist/ for whoever reads a stack trace of the bundle; the bundle names
  // none (nothing loads it) and the package ships none.
  sourcemap: 'external',
  legalComments: 'none',
  metafile: metafile !== undefined,
  logLevel: 'warning',
});
if (metafile !== undefined) writeFileSync(metafile, JSON.stringify(result.metafile));
// esbuild turns each import() of a bundled module, or of an external one, into a require. One
// left as is would fail once the bundle runs from its code cache (Node 20 loses the script's
// dynamic-import callback then): no start may depend on which way it was compiled.
const nativeImport = /(?<![\w$.])import\s*\(/.exec(readFileSync(resolve(out, 'deflow.cjs'), 'utf8'));
if (nativeImport !== null) throw new Error(`dist/bin/deflow.cjs holds an import() at offset ${nativeImport.index}: make its target resolvable at build time`);

await build({
  absWorkingDir,
  tsconfig,
  entryPoints: [resolve(dist, 'cli', 'bin.js')],
  outfile: resolve(out, 'deflow.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});

// check-schema.ts loads the precompiled validators from a folder beside its own module.
const schemaDir = resolve(dist, 'workflow', 'schema');
const { STANDALONE_VALIDATORS_DIR } = await import(pathToFileURL(resolve(schemaDir, 'standalone-validator-files.js')).href);
cpSync(resolve(schemaDir, STANDALONE_VALIDATORS_DIR), resolve(out, STANDALONE_VALIDATORS_DIR), { recursive: true });

// The code cache (for a Node without its own compile cache, before 22.1; from 22.1 on the bin
// turns Node's on, which keeps its files elsewhere, so there is none to write here): the bin
// writes one when it finds none, so a demo run leaves the cache of what validating, quoting,
// running and reporting compile. The run talks to an emulator in another process (time sped
// up), so that the emulator's own code is not in the cache every start loads.
const { enableCompileCache } = await import('node:module');
if (typeof enableCompileCache === 'function') process.exit(0);
const demo = fileURLToPath(new URL('../workflows/demo.yaml', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'deflow-code-cache-'));
const env = { ...process.env };
for (const name of ['DEAPI_API_KEY', 'DEAPI_BASE_URL', 'DEFLOW_CODE_CACHE']) delete env[name];
let emulator;
try {
  writeFileSync(join(scratch, 'emulator.yaml'), 'time_scale: 20\n');
  emulator = spawn(process.execPath, [resolve(out, 'deflow.js'), 'emulator', '--port', '0', '--config', join(scratch, 'emulator.yaml')], {
    cwd: scratch,
    env: { ...env, DEFLOW_CODE_CACHE: 'off' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const service = await new Promise((found, fail) => {
    let text = '';
    emulator.stdout.on('data', (chunk) => {
      text += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
      const key = /api key: (\S+)/.exec(text)?.[1];
      if (url && key) found({ url, key });
    });
    emulator.on('exit', (code) => fail(new Error(`the emulator exited (${code}): ${text}`)));
  });
  const { stderr } = await promisify(execFile)(
    process.execPath,
    [resolve(out, 'deflow.js'), 'run', demo, '--quiet', '--state-dir', join(scratch, 'state'), '--output', join(scratch, 'out')],
    { cwd: scratch, env: { ...env, DEAPI_BASE_URL: service.url, DEAPI_API_KEY: service.key, DEFLOW_CODE_CACHE: 'verbose' } },
  );
  if (!/code cache written/.test(stderr)) throw new Error(`no code cache was written:\n${stderr}`);
} catch (error) {
  // The CLI works without it (its first start writes one); the build says why there is none.
  console.warn(`bundle-cli: the code cache was not written: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  emulator?.kill();
  rmSync(scratch, { recursive: true, force: true });
}
