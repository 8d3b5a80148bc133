/**
 * How the package's bin starts the CLI: the build bundles the CLI into CommonJS scripts, the
 * entry `dist/bin/deflow.cjs` and the chunks beside it that it requires as commands need them
 * (`--help` loads the command tree only), and this module runs them with V8's code cache.
 *
 * Most of a start is compiling JavaScript: the bundle's functions are parsed and turned into
 * bytecode as they are first called. V8 can keep that bytecode in a code cache and load it
 * instead. From Node 22.1 on, Node does so itself: `module.enableCompileCache()` (its folder
 * is `$NODE_COMPILE_CACHE`, else `node-compile-cache` in the temp folder), and the bundle is
 * then required as any CommonJS module. Node 20 has no such cache, but `vm.Script` takes one
 * for a script: there the CLI is compiled here, as one script, and the build writes its
 * cache (`code-cache/<V8 version>-<arch>-<digest of the bundle>.bin` beside the bundle) from a
 * demo run against the emulator, which compiles what validating, quoting and running use.
 *
 * V8 checks that a cache was made by its own version with the same flags for a source of the
 * same length, and rejects it otherwise: the script then compiles as usual. A start that finds
 * no cache, or one rejected (another Node), writes a new one when it exits, for the next start,
 * if the folder is writable (written aside and renamed into place: a reader never sees half a
 * file). The bundle and its cache folder are replaced together by each build.
 * `DEFLOW_CODE_CACHE=off` starts without the cache and writes none; `verbose` says on stderr
 * what became of it.
 */
import { isAscii } from 'node:buffer';
import { mkdirSync, readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { writeFileAtomic } from '../common/index.js';

/** node:crypto and node:vm, loaded only where the vm.Script code cache is used (each built-in costs a start its compile). */
const lazyRequire = createRequire(import.meta.url);

/** The environment variable that turns the code cache off (`off`) or reports on it (`verbose`). */
export const CODE_CACHE_ENV = 'DEFLOW_CODE_CACHE';

/** What became of the code cache at a start: loaded, refused by V8, not there, or not looked for. */
export type CodeCacheVerdict = 'used' | 'rejected' | 'missing' | 'off';

/** A CommonJS bundle compiled and run, with its code cache's verdict. */
export interface LoadedBundle {
  readonly exports: Record<string, unknown>;
  readonly verdict: CodeCacheVerdict;
  /** The file the cache is read from and written to. */
  readonly cacheFile: string;
  /** Writes the cache of what has been compiled so far (atomically; false when it could not). */
  writeCache(): boolean;
}

/**
 * The code cache of a bundle for this process's V8 and architecture. V8 checks a cache against
 * its source by length only, so the name holds a digest of the bundle's bytes: a cache is
 * never applied to another bundle, even one of the same length left beside it.
 */
export function codeCacheFile(bundle: string, bytes: Buffer): string {
  const { createHash } = lazyRequire('node:crypto') as typeof import('node:crypto');
  const digest = createHash('sha1').update(bytes).digest('hex').slice(0, 16);
  return join(dirname(bundle), 'code-cache', `${process.versions.v8}-${process.arch}-${digest}.bin`);
}

/**
 * Compiles the CommonJS script `bundle` with its code cache (unless `mode` is `off`) and runs
 * it as Node runs a CommonJS module. The bundle must hold no `import()` (the build checks):
 * Node 20 loses a script's dynamic-import callback when the script comes from a code cache.
 */
export function loadBundle(bundle: string, mode: string | undefined = process.env[CODE_CACHE_ENV]): LoadedBundle {
  const module = { exports: {} as Record<string, unknown> };
  const compiled = compileCached(bundle, mode === 'off');
  compiled.run(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return { exports: module.exports, verdict: compiled.verdict, cacheFile: compiled.cacheFile, writeCache: compiled.writeCache };
}

/** A CommonJS script compiled with its code cache, ready to run as Node runs a module. */
interface CompiledScript extends Omit<LoadedBundle, 'exports'> {
  readonly run: (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
}

function compileCached(file: string, off: boolean): CompiledScript {
  const bytes = readFileSync(file);
  const cacheFile = codeCacheFile(file, bytes);
  let cachedData: Buffer | undefined;
  if (!off) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // No cache yet (or unreadable): compiled as usual, and written at exit.
    }
  }
  // esbuild writes ASCII (it escapes the rest), which decodes faster as Latin-1. A hashbang line
  // is a comment to Node's own loader; the line stays, to keep positions.
  const source = (isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')).replace(/^#!/, '//');
  const { Script } = lazyRequire('node:vm') as typeof import('node:vm');
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const verdict: CodeCacheVerdict = off ? 'off' : cachedData === undefined ? 'missing' : script.cachedDataRejected === true ? 'rejected' : 'used';
  return {
    verdict,
    cacheFile,
    run: script.runInThisContext() as CompiledScript['run'],
    writeCache: () => {
      try {
        mkdirSync(dirname(cacheFile), { recursive: true });
        writeFileAtomic(cacheFile, script.createCachedData());
        return true;
      } catch {
        // A read-only install keeps starting without a cache.
        return false;
      }
    },
  };
}

/** Node's CommonJS loader, as far as a script's extension handler needs it. */
interface CommonJsLoader {
  readonly _extensions: Record<string, (module: { exports: unknown }, filename: string) => void>;
}

/**
 * From now on, a `.cjs` script in `folder` (a chunk of the bundle) that this process requires is
 * compiled with its code cache, as `loadBundle` compiles the entry; each one compiled is passed
 * to `onCompiled` (to write its cache at exit). Other files load as Node loads them.
 */
export function cacheChunksBeside(folder: string, mode: string | undefined, onCompiled: (compiled: Omit<LoadedBundle, 'exports'>) => void): void {
  const loader = lazyRequire('node:module') as CommonJsLoader;
  const extensions = loader._extensions;
  const fallback = extensions['.cjs'] ?? extensions['.js'];
  if (fallback === undefined) return;
  extensions['.cjs'] = function (module, filename) {
    if (dirname(filename) !== folder) {
      fallback.call(this, module, filename);
      return;
    }
    const compiled = compileCached(filename, mode === 'off');
    onCompiled(compiled);
    compiled.run(module.exports, createRequire(filename), module, filename, folder);
  };
}

/**
 * The global function a script of the bundle calls first (its banner, written by the build):
 * where the bin compiles the bundle eagerly, it turns V8's lazy compiling back on.
 */
export const EAGER_RESET_GLOBAL = '__deflowScriptCompiled';

/**
 * From now on, a `.cjs` script in `folder` or below (a chunk of the bundle, a precompiled
 * validator) is compiled eagerly: every function in it, not only its top level. Node's own
 * compile cache keeps only what V8 compiled before the script ran, so a function compiled at
 * its first call would be compiled again at every start; compiled eagerly, it is in the cache,
 * and a start reads it instead. V8's `--no-lazy` is set while Node compiles such a script and
 * unset by the script's first statement (the banner's call of `EAGER_RESET_GLOBAL`), so Node's
 * built-ins and the other packages a script requires as it runs compile as usual; it is unset
 * again when the require returns, whatever became of it.
 */
export function compileEagerlyBeside(folder: string): void {
  const { setFlagsFromString } = lazyRequire('node:v8') as typeof import('node:v8');
  const lazy = (): void => setFlagsFromString('--lazy');
  (globalThis as Record<string, unknown>)[EAGER_RESET_GLOBAL] = lazy;
  const extensions = (lazyRequire('node:module') as CommonJsLoader)._extensions;
  const fallback = extensions['.cjs'] ?? extensions['.js'];
  if (fallback === undefined) return;
  const inside = `${folder}${sep}`;
  extensions['.cjs'] = function (module, filename) {
    if (!filename.startsWith(inside)) {
      fallback.call(this, module, filename);
      return;
    }
    setFlagsFromString('--no-lazy');
    try {
      fallback.call(this, module, filename);
    } finally {
      lazy();
    }
  };
}

/** What `module.enableCompileCache()` (Node ≥ 22.1) returns. */
interface CompileCacheResult {
  readonly status: number;
  readonly message?: string;
  readonly directory?: string;
}

/** Node's own compile cache (`module.enableCompileCache`, Node ≥ 22.1), or undefined where Node lacks it. */
export function nodeCompileCache(): ((directory?: string) => CompileCacheResult) | undefined {
  const enable = (nodeModule as { enableCompileCache?: unknown }).enableCompileCache;
  return typeof enable === 'function' ? (enable as (directory?: string) => CompileCacheResult) : undefined;
}

/** The name of a status `module.enableCompileCache()` returned. */
function compileCacheStatus(status: number): string {
  const names = (nodeModule as { constants?: { compileCacheStatus?: Record<string, number> } }).constants?.compileCacheStatus ?? {};
  return Object.entries(names).find(([, value]) => value === status)?.[0]?.toLowerCase().replace(/_/g, ' ') ?? String(status);
}

/**
 * The bin: loads the CLI bundle and runs its `main`. Where Node has its own compile cache
 * (≥ 22.1), that cache is turned on and the bundle required. Elsewhere the bundle is compiled
 * with its `vm.Script` code cache; when that was missing or rejected, the process writes one as
 * it exits (once the command has compiled what it used).
 */
export function startBundle(bundle: string): void {
  const mode = process.env[CODE_CACHE_ENV];
  const verbose = mode === 'verbose';
  const enableCompileCache = nodeCompileCache();
  if (enableCompileCache !== undefined) {
    if (mode !== 'off') {
      const result = enableCompileCache();
      if (verbose) process.stderr.write(`deflow: compile cache ${compileCacheStatus(result.status)} (${result.directory ?? result.message ?? 'node'})\n`);
      // Only where the cache keeps what is compiled: without it (NODE_DISABLE_COMPILE_CACHE, a
      // folder that cannot be made) every function would be compiled at every start.
      const kept = compileCacheStatus(result.status);
      if (kept === 'enabled' || kept === 'already enabled') compileEagerlyBeside(dirname(bundle));
    } else if (verbose) process.stderr.write('deflow: compile cache off\n');
    runMain(bundle, createRequire(bundle)(bundle) as Record<string, unknown>);
    return;
  }
  // Every script compiled without a usable cache (the entry and each chunk) writes one at exit.
  const unwritten: Omit<LoadedBundle, 'exports'>[] = [];
  const note = (compiled: Omit<LoadedBundle, 'exports'>): void => {
    if (compiled.verdict === 'missing' || compiled.verdict === 'rejected') unwritten.push(compiled);
  };
  cacheChunksBeside(dirname(bundle), mode, note);
  const loaded = loadBundle(bundle, mode);
  note(loaded);
  if (verbose) process.stderr.write(`deflow: code cache ${loaded.verdict} (${loaded.cacheFile})\n`);
  process.once('exit', () => {
    for (const compiled of unwritten) {
      const written = compiled.writeCache();
      if (verbose) process.stderr.write(`deflow: code cache ${written ? 'written' : 'not written'} (${compiled.cacheFile})\n`);
    }
  });
  runMain(bundle, loaded.exports);
}

function runMain(bundle: string, exports: Record<string, unknown>): void {
  const main = exports['main'];
  if (typeof main !== 'function') throw new Error(`${bundle} exports no main()`);
  void (main as () => Promise<void>)();
}
