// Part of `npm run build`, after tsc and write-validators.mjs: bundles the CLI (the compiled
// dist/cli/main.js and all it imports, npm packages included) into CommonJS scripts in
// dist/bin/: the entry deflow.cjs and the chunks it requires (chunk-<hash>.cjs), and writes
// V8's code cache of them for a Node without its own compile cache; the package's `bin`,
// dist/bin/deflow.js, is src/cli/bin.ts bundled, which starts deflow.cjs with that cache (see
// start-bundle.ts for why: Node 20 keeps no code cache of ES modules). Commands and heavy
// libraries stay lazy: a chunk is required when the code that import()s it first runs.
// `node scripts/bundle-cli.mjs [DIST] [--metafile FILE]`: DIST is the build's output folder
// (default dist/); FILE receives esbuild's metafile of the CLI bundle.
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, transform } from 'esbuild';

const args = process.argv.slice(2);
const metaAt = args.indexOf('--metafile');
const metafile = metaAt === -1 ? undefined : args.splice(metaAt, 2)[1];
const dist = resolve(args[0] ?? fileURLToPath(new URL('../dist', import.meta.url)));
const out = resolve(dist, 'bin');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

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


// What the start loads beyond the CLI's own code is Node's built-ins, each compiled at its first
// require. Two trims keep `--help` to the few it needs:
// - deflow's compiled modules have no effect at load but their exports (no import is made for
//   its side effects): a module none of whose exports a chunk uses is left out of it, with the
//   built-ins it imports (common's crypto and zlib, for a start that writes nothing);
// - commander requires child_process (and with it net, dgram and streams) for subcommands run
//   as executables, which deflow has none of: required when first used instead.
const distModules = resolve(dist);
const startTrims = {
  name: 'start-trims',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === 'start-trims' || !args.importer.startsWith(distModules)) return undefined;
      const found = await pluginBuild.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'start-trims' });
      if (found.errors.length > 0 || !found.path.startsWith(distModules)) return undefined;
      return { path: found.path, sideEffects: false };
    });
    pluginBuild.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!source.includes(eager)) throw new Error(`${args.path}: commander no longer requires child_process as expected; revisit start-trims`);
      return { contents: source.replace(eager, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };"), loader: 'js' };
    });
  },
};


// Where Node keeps its own compile cache, the bin compiles the bundle's scripts eagerly (see
// start-bundle.ts): each script's first statement turns V8's lazy compiling back on.
const EAGER_RESET = 'globalThis.__deflowScriptCompiled?.()';

// The CLI split into chunks: esbuild's code splitting (ES modules only) writes the entry, one
// chunk per module that is only import()ed and chunks of what several of them share; each is
// then turned into a CommonJS script. `--help` loads the entry and the command tree's chunks
// only; a command loads its own action's chunks when it runs (validate: no engine, report,
// OpenTelemetry, prom-client or queue code).
const esm = mkdtempSync(join(tmpdir(), 'deflow-bundle-esm-'));
let result;
try {
  result = await build({
    absWorkingDir,
    tsconfig,
    entryPoints: { deflow: resolve(dist, 'cli', 'main.js') },
    outdir: esm,
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    // A chunk's name hashes its modules' paths: node_modules seen through a symlink (a build in
    // another folder) keeps the paths, and so the names, of a build in the repository.
    preserveSymlinks: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Queue mode's packages find native addons and files beside their own modules: loaded from
    // node_modules as they are (only `--queue` and `deflow worker` load them).
    external: ['bullmq', 'ioredis'],
    plugins: [builtinImportsAsRequire, startTrims],
    // Modules that find files beside themselves (the precompiled validators, the emulator's
    // package root) see their chunk's URL: every chunk is in dist/bin/.
    define: { 'import.meta.url': '__deflowImportMetaUrl' },
    // Smaller source is less to read and hash at each start; names stay as written (error
    // names, stack traces), even where two modules' names collide.
    minify: true,
    keepNames: true,
    legalComments: 'none',
    metafile: metafile !== undefined,
    logLevel: 'warning',
  });
  // Each chunk as a CommonJS script: an import() of a chunk becomes a require (one left as is
  // would fail once a chunk runs from its code cache: Node 20 loses the script's
  // dynamic-import callback then), a static import a require by esbuild's transform.
  for (const file of readdirSync(esm).sort()) {
    const source = readFileSync(join(esm, file), 'utf8')
      .replace(/\bimport\((["'])\.\/((?:chunk-[A-Z0-9]+|deflow))\.js\1\)/g, 'Promise.resolve().then(()=>require($1./$2.cjs$1))')
      .replace(/(["'])\.\/(chunk-[A-Z0-9]+|deflow)\.js\1/g, '$1./$2.cjs$1');
    const { code } = await transform(source, {
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      minify: true,
      legalComments: 'none',
      banner: `"use strict";${EAGER_RESET};var __deflowImportMetaUrl=require("node:url").pathToFileURL(__filename).href;`,
    });
    const nativeImport = /(?<![\w$.])import\s*\(/.exec(code);
    if (nativeImport !== null) throw new Error(`${file} holds an import() at offset ${nativeImport.index}: make its target resolvable at build time`);
    writeFileSync(resolve(out, file.replace(/\.js$/, '.cjs')), code);
  }
} finally {
  rmSync(esm, { recursive: true, force: true });
}
if (metafile !== undefined) writeFileSync(metafile, JSON.stringify(result.metafile));

// The bin is a CommonJS script too: an ES module entry costs Node its ES module loader at every
// start (about 10 ms of Node 24's 60 ms bare start, measured by bench/startup.ts). dist/bin/ is
// marked CommonJS (its own package.json) so that its `deflow.js` keeps the package's bin path.
await build({
  absWorkingDir,
  tsconfig,
  entryPoints: [resolve(dist, 'cli', 'bin.js')],
  outfile: resolve(out, 'deflow.js'),
  bundle: true,
  plugins: [startTrims],
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  define: { 'import.meta.url': '__deflowImportMetaUrl' },
  banner: { js: '"use strict";var __deflowImportMetaUrl=require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
});
writeFileSync(resolve(out, 'package.json'), '{ "type": "commonjs" }\n');

// check-schema.ts loads the precompiled validators from a folder beside its own module.
const schemaDir = resolve(dist, 'workflow', 'schema');
const { STANDALONE_VALIDATORS_DIR } = await import(pathToFileURL(resolve(schemaDir, 'standalone-validator-files.js')).href);
cpSync(resolve(schemaDir, STANDALONE_VALIDATORS_DIR), resolve(out, STANDALONE_VALIDATORS_DIR), { recursive: true });
// They are scripts of the bundle's folder too, compiled eagerly: the same first statement.
for (const file of readdirSync(resolve(out, STANDALONE_VALIDATORS_DIR))) {
  if (!file.endsWith('.cjs')) continue;
  const path = resolve(out, STANDALONE_VALIDATORS_DIR, file);
  const source = readFileSync(path, 'utf8');
  if (!source.includes('"use strict";')) throw new Error(`${path}: expected a "use strict"; directive to put the eager reset after`);
  writeFileSync(path, source.replace('"use strict";', `"use strict";${EAGER_RESET};`));
}

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
