#!/usr/bin/env node
"use strict";var __deflowImportMetaUrl=require("node:url").pathToFileURL(__filename).href;
"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// dist/cli/bin.js
var import_node_url = require("node:url");

// dist/cli/start-bundle.js
var import_node_buffer = require("node:buffer");
var import_node_fs3 = require("node:fs");
var nodeModule = __toESM(require("node:module"));
var import_node_module = require("node:module");
var import_node_path2 = require("node:path");

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
var import_node_fs2 = require("node:fs");
var import_node_path = require("node:path");

// dist/common/orphan-temps.js
var import_node_fs = require("node:fs");
var crypto = () => process.getBuiltinModule("node:crypto");
var TEMP_SUFFIX = ".part";
var MAX_TEMP_NAME_BYTES = 1 + 8 + 1 + 7 + 1 + 8 + TEMP_SUFFIX.length;
var ANONYMOUS_GRACE_MS = 2 * 3600 * 1e3;
var ownTags;
function tags() {
  if (ownTags === void 0) {
    let boot = "";
    try {
      boot = (0, import_node_fs.readFileSync)("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
    }
    ownTags = { host: tag(process.getBuiltinModule("node:os").hostname()), boot: tag(boot) };
  }
  return ownTags;
}
function tag(text) {
  return crypto().createHash("sha256").update(text).digest("hex").slice(0, 4);
}
function newTempName() {
  const { host, boot } = tags();
  return `.${crypto().randomBytes(4).toString("hex")}.${process.pid}.${host}${boot}${TEMP_SUFFIX}`;
}

// dist/common/durable-fs.js
function fsyncDir(dir) {
  const fd = (0, import_node_fs2.openSync)(dir, "r");
  try {
    (0, import_node_fs2.fsyncSync)(fd);
  } finally {
    (0, import_node_fs2.closeSync)(fd);
  }
}
function mkdirDurable(dir) {
  const first = (0, import_node_fs2.mkdirSync)(dir, { recursive: true });
  if (first === void 0)
    return;
  for (let d = dir; ; d = (0, import_node_path.dirname)(d)) {
    fsyncDir((0, import_node_path.dirname)(d));
    if (d === first || (0, import_node_path.dirname)(d) === d)
      break;
  }
}
function writeAll(fd, data) {
  let offset = 0;
  while (offset < data.length)
    offset += (0, import_node_fs2.writeSync)(fd, data, offset, data.length - offset);
}
var CREATE_FLAGS = import_node_fs2.constants.O_WRONLY | import_node_fs2.constants.O_CREAT | import_node_fs2.constants.O_EXCL | import_node_fs2.constants.O_NOFOLLOW;
function tempPathFor(path) {
  return (0, import_node_path.join)((0, import_node_path.dirname)(path), newTempName());
}
function writeFileAtomic(path, data, options = {}) {
  try {
    if (options.makeFolder === true)
      mkdirDurable((0, import_node_path.dirname)(path));
    refuseNonFile(path, lstatOrUndefined(path));
    const tmp = tempPathFor(path);
    const fd = (0, import_node_fs2.openSync)(tmp, CREATE_FLAGS, options.mode ?? 420);
    try {
      writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
      (0, import_node_fs2.fdatasyncSync)(fd);
      (0, import_node_fs2.closeSync)(fd);
      refuseNonFile(path, lstatOrUndefined(path));
      (0, import_node_fs2.renameSync)(tmp, path);
    } catch (error) {
      try {
        (0, import_node_fs2.closeSync)(fd);
      } catch {
      }
      (0, import_node_fs2.rmSync)(tmp, { force: true });
      throw error;
    }
    fsyncDir((0, import_node_path.dirname)(path));
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
    return (0, import_node_fs2.lstatSync)(path);
  } catch (error) {
    return ifMissing(error);
  }
}
function refuseNonFile(path, info) {
  if (info === void 0 || info.isFile())
    return;
  const kind = info.isDirectory() ? "a folder" : info.isSymbolicLink() ? "a symbolic link" : info.isCharacterDevice() || info.isBlockDevice() ? "a device" : info.isFIFO() ? "a fifo" : info.isSocket() ? "a socket" : "not a regular file";
  throw new DeflowError("E_OUTPUT_NOT_FILE", `${(0, import_node_path.resolve)(path)}: is ${kind}; deflow replaces only regular files (remove it or choose another name)`, {
    details: { path: (0, import_node_path.resolve)(path), kind }
  });
}
var DISK_FULL = /* @__PURE__ */ new Set(["ENOSPC", "EDQUOT"]);
var NOT_WRITABLE = /* @__PURE__ */ new Set(["EROFS", "EACCES", "EPERM"]);
function fileWriteError(path, error) {
  if (error instanceof DeflowError)
    return error;
  const code = error?.code;
  if (code !== void 0 && DISK_FULL.has(code)) {
    return new DeflowError("E_DISK_FULL", `${(0, import_node_path.resolve)(path)}: no space left on the device (${code}); free some space and run the command again`, {
      cause: error,
      details: { path: (0, import_node_path.resolve)(path), errno: code }
    });
  }
  if (code !== void 0 && NOT_WRITABLE.has(code)) {
    return new DeflowError("E_OUTPUT_NOT_WRITABLE", `${(0, import_node_path.resolve)(path)}: cannot write here (${code}: ${code === "EROFS" ? "a read-only file system" : "permission denied"})`, {
      cause: error,
      details: { path: (0, import_node_path.resolve)(path), errno: code }
    });
  }
  return error;
}

// dist/cli/start-bundle.js
var lazyRequire = (0, import_node_module.createRequire)(__deflowImportMetaUrl);
var CODE_CACHE_ENV = "DEFLOW_CODE_CACHE";
function codeCacheFile(bundle, bytes) {
  const { createHash } = lazyRequire("node:crypto");
  const digest = createHash("sha1").update(bytes).digest("hex").slice(0, 16);
  return (0, import_node_path2.join)((0, import_node_path2.dirname)(bundle), "code-cache", `${process.versions.v8}-${process.arch}-${digest}.bin`);
}
function loadBundle(bundle, mode = process.env[CODE_CACHE_ENV]) {
  const module2 = { exports: {} };
  const compiled = compileCached(bundle, mode === "off");
  compiled.run(module2.exports, (0, import_node_module.createRequire)(bundle), module2, bundle, (0, import_node_path2.dirname)(bundle));
  return { exports: module2.exports, verdict: compiled.verdict, cacheFile: compiled.cacheFile, writeCache: compiled.writeCache };
}
function compileCached(file, off) {
  const bytes = (0, import_node_fs3.readFileSync)(file);
  const cacheFile = codeCacheFile(file, bytes);
  let cachedData;
  if (!off) {
    try {
      cachedData = (0, import_node_fs3.readFileSync)(cacheFile);
    } catch {
    }
  }
  const source = ((0, import_node_buffer.isAscii)(bytes) ? bytes.toString("latin1") : bytes.toString("utf8")).replace(/^#!/, "//");
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
        (0, import_node_fs3.mkdirSync)((0, import_node_path2.dirname)(cacheFile), { recursive: true });
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
  extensions[".cjs"] = function(module2, filename) {
    if ((0, import_node_path2.dirname)(filename) !== folder) {
      fallback.call(this, module2, filename);
      return;
    }
    const compiled = compileCached(filename, mode === "off");
    onCompiled(compiled);
    compiled.run(module2.exports, (0, import_node_module.createRequire)(filename), module2, filename, folder);
  };
}
var EAGER_RESET_GLOBAL = "__deflowScriptCompiled";
function compileEagerlyBeside(folder) {
  const { setFlagsFromString } = lazyRequire("node:v8");
  const lazy = () => setFlagsFromString("--lazy");
  globalThis[EAGER_RESET_GLOBAL] = lazy;
  const extensions = lazyRequire("node:module")._extensions;
  const fallback = extensions[".cjs"] ?? extensions[".js"];
  if (fallback === void 0)
    return;
  const inside = `${folder}${import_node_path2.sep}`;
  extensions[".cjs"] = function(module2, filename) {
    if (!filename.startsWith(inside)) {
      fallback.call(this, module2, filename);
      return;
    }
    setFlagsFromString("--no-lazy");
    try {
      fallback.call(this, module2, filename);
    } finally {
      lazy();
    }
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
      const kept = compileCacheStatus(result.status);
      if (kept === "enabled" || kept === "already enabled")
        compileEagerlyBeside((0, import_node_path2.dirname)(bundle));
    } else if (verbose)
      process.stderr.write("deflow: compile cache off\n");
    runMain(bundle, (0, import_node_module.createRequire)(bundle)(bundle));
    return;
  }
  const unwritten = [];
  const note = (compiled) => {
    if (compiled.verdict === "missing" || compiled.verdict === "rejected")
      unwritten.push(compiled);
  };
  cacheChunksBeside((0, import_node_path2.dirname)(bundle), mode, note);
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
function runMain(bundle, exports2) {
  const main = exports2["main"];
  if (typeof main !== "function")
    throw new Error(`${bundle} exports no main()`);
  void main();
}

// dist/cli/bin.js
startBundle((0, import_node_url.fileURLToPath)(new URL("./deflow.cjs", __deflowImportMetaUrl)));
