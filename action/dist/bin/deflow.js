#!/usr/bin/env node

// dist/cli/bin.js
import { fileURLToPath } from "node:url";

// dist/cli/start-bundle.js
import { isAscii } from "node:buffer";
import { mkdirSync as mkdirSync2, readFileSync as readFileSync2 } from "node:fs";
import * as nodeModule from "node:module";
import { createRequire } from "node:module";
import { dirname as dirname2, join as join2 } from "node:path";

// dist/common/deflow-error.js
var DeflowError = class extends Error {
  name = "DeflowError";
  code;
  details;
  constructor(code, message, options = {}) {
    super(message, options.cause === void 0 ? void 0 : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
};

// dist/common/durable-fs.js
import { closeSync, constants as fsConstants, existsSync, fdatasyncSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

// dist/common/orphan-temps.js
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
var TEMP_SUFFIX = ".part";
var MAX_TEMP_NAME_BYTES = 1 + 8 + 1 + 7 + 1 + 8 + TEMP_SUFFIX.length;
var ANONYMOUS_GRACE_MS = 2 * 3600 * 1e3;
var ownTags;
function tags() {
  if (ownTags === void 0) {
    let boot = "";
    try {
      boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
    }
    ownTags = { host: tag(hostname()), boot: tag(boot) };
  }
  return ownTags;
}
function tag(text) {
  return createHash("sha256").update(text).digest("hex").slice(0, 4);
}
function newTempName() {
  const { host, boot } = tags();
  return `.${randomBytes(4).toString("hex")}.${process.pid}.${host}${boot}${TEMP_SUFFIX}`;
}

// dist/common/durable-fs.js
function fsyncDir(dir) {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
function mkdirDurable(dir) {
  const first = mkdirSync(dir, { recursive: true });
  if (first === void 0)
    return;
  for (let d = dir; ; d = dirname(d)) {
    fsyncDir(dirname(d));
    if (d === first || dirname(d) === d)
      break;
  }
}
function writeAll(fd, data) {
  let offset = 0;
  while (offset < data.length)
    offset += writeSync(fd, data, offset, data.length - offset);
}
var CREATE_FLAGS = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW;
function tempPathFor(path) {
  return join(dirname(path), newTempName());
}
function writeFileAtomic(path, data, options = {}) {
  try {
    if (options.makeFolder === true)
      mkdirDurable(dirname(path));
    refuseNonFile(path, lstatOrUndefined(path));
    const tmp = tempPathFor(path);
    const fd = openSync(tmp, CREATE_FLAGS, options.mode ?? 420);
    try {
      writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
      fdatasyncSync(fd);
      closeSync(fd);
      refuseNonFile(path, lstatOrUndefined(path));
      renameSync(tmp, path);
    } catch (error) {
      try {
        closeSync(fd);
      } catch {
      }
      rmSync(tmp, { force: true });
      throw error;
    }
    fsyncDir(dirname(path));
  } catch (error) {
    throw fileWriteError(path, error);
  }
}
function ifMissing(error) {
  if (error.code === "ENOENT")
    return void 0;
  throw error;
}
function lstatOrUndefined(path) {
  try {
    return lstatSync(path);
  } catch (error) {
    return ifMissing(error);
  }
}
function refuseNonFile(path, info) {
  if (info === void 0 || info.isFile())
    return;
  const kind = info.isDirectory() ? "a folder" : info.isSymbolicLink() ? "a symbolic link" : info.isCharacterDevice() || info.isBlockDevice() ? "a device" : info.isFIFO() ? "a fifo" : info.isSocket() ? "a socket" : "not a regular file";
  throw new DeflowError("E_OUTPUT_NOT_FILE", `${resolve(path)}: is ${kind}; deflow replaces only regular files (remove it or choose another name)`, {
    details: { path: resolve(path), kind }
  });
}
var DISK_FULL = /* @__PURE__ */ new Set(["ENOSPC", "EDQUOT"]);
var NOT_WRITABLE = /* @__PURE__ */ new Set(["EROFS", "EACCES", "EPERM"]);
function fileWriteError(path, error) {
  if (error instanceof DeflowError)
    return error;
  const code = error?.code;
  if (code !== void 0 && DISK_FULL.has(code)) {
    return new DeflowError("E_DISK_FULL", `${resolve(path)}: no space left on the device (${code}); free some space and run the command again`, {
      cause: error,
      details: { path: resolve(path), errno: code }
    });
  }
  if (code !== void 0 && NOT_WRITABLE.has(code)) {
    return new DeflowError("E_OUTPUT_NOT_WRITABLE", `${resolve(path)}: cannot write here (${code}: ${code === "EROFS" ? "a read-only file system" : "permission denied"})`, {
      cause: error,
      details: { path: resolve(path), errno: code }
    });
  }
  return error;
}

// dist/cli/start-bundle.js
var lazyRequire = createRequire(import.meta.url);
var CODE_CACHE_ENV = "DEFLOW_CODE_CACHE";
function codeCacheFile(bundle, bytes) {
  const { createHash: createHash2 } = lazyRequire("node:crypto");
  const digest = createHash2("sha1").update(bytes).digest("hex").slice(0, 16);
  return join2(dirname2(bundle), "code-cache", `${process.versions.v8}-${process.arch}-${digest}.bin`);
}
function loadBundle(bundle, mode = process.env[CODE_CACHE_ENV]) {
  const module = { exports: {} };
  const compiled = compileCached(bundle, mode === "off");
  compiled.run(module.exports, createRequire(bundle), module, bundle, dirname2(bundle));
  return { exports: module.exports, verdict: compiled.verdict, cacheFile: compiled.cacheFile, writeCache: compiled.writeCache };
}
function compileCached(file, off) {
  const bytes = readFileSync2(file);
  const cacheFile = codeCacheFile(file, bytes);
  let cachedData;
  if (!off) {
    try {
      cachedData = readFileSync2(cacheFile);
    } catch {
    }
  }
  const source = (isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8")).replace(/^#!/, "//");
  const { Script } = lazyRequire("node:vm");
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}
})`, {
    filename: file,
    ...cachedData === void 0 ? {} : { cachedData }
  });
  const verdict = off ? "off" : cachedData === void 0 ? "missing" : script.cachedDataRejected === true ? "rejected" : "used";
  return {
    verdict,
    cacheFile,
    run: script.runInThisContext(),
    writeCache: () => {
      try {
        mkdirSync2(dirname2(cacheFile), { recursive: true });
        writeFileAtomic(cacheFile, script.createCachedData());
        return true;
      } catch {
        return false;
      }
    }
  };
}
function cacheChunksBeside(folder, mode, onCompiled) {
  const loader = lazyRequire("node:module");
  const extensions = loader._extensions;
  const fallback = extensions[".cjs"] ?? extensions[".js"];
  if (fallback === void 0)
    return;
  extensions[".cjs"] = function(module, filename) {
    if (dirname2(filename) !== folder) {
      fallback.call(this, module, filename);
      return;
    }
    const compiled = compileCached(filename, mode === "off");
    onCompiled(compiled);
    compiled.run(module.exports, createRequire(filename), module, filename, folder);
  };
}
function nodeCompileCache() {
  const enable = nodeModule.enableCompileCache;
  return typeof enable === "function" ? enable : void 0;
}
function compileCacheStatus(status) {
  const names = nodeModule.constants?.compileCacheStatus ?? {};
  return Object.entries(names).find(([, value]) => value === status)?.[0]?.toLowerCase().replace(/_/g, " ") ?? String(status);
}
function startBundle(bundle) {
  const mode = process.env[CODE_CACHE_ENV];
  const verbose = mode === "verbose";
  const enableCompileCache2 = nodeCompileCache();
  if (enableCompileCache2 !== void 0) {
    if (mode !== "off") {
      const result = enableCompileCache2();
      if (verbose)
        process.stderr.write(`deflow: compile cache ${compileCacheStatus(result.status)} (${result.directory ?? result.message ?? "node"})
`);
    } else if (verbose)
      process.stderr.write("deflow: compile cache off\n");
    runMain(bundle, createRequire(bundle)(bundle));
    return;
  }
  const unwritten = [];
  const note = (compiled) => {
    if (compiled.verdict === "missing" || compiled.verdict === "rejected")
      unwritten.push(compiled);
  };
  cacheChunksBeside(dirname2(bundle), mode, note);
  const loaded = loadBundle(bundle, mode);
  note(loaded);
  if (verbose)
    process.stderr.write(`deflow: code cache ${loaded.verdict} (${loaded.cacheFile})
`);
  process.once("exit", () => {
    for (const compiled of unwritten) {
      const written = compiled.writeCache();
      if (verbose)
        process.stderr.write(`deflow: code cache ${written ? "written" : "not written"} (${compiled.cacheFile})
`);
    }
  });
  runMain(bundle, loaded.exports);
}
function runMain(bundle, exports) {
  const main = exports["main"];
  if (typeof main !== "function")
    throw new Error(`${bundle} exports no main()`);
  void main();
}

// dist/cli/bin.js
startBundle(fileURLToPath(new URL("./deflow.cjs", import.meta.url)));
