#!/usr/bin/env node

// dist/cli/bin.js
import { fileURLToPath } from "node:url";

// dist/cli/start-bundle.js
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { mkdirSync as mkdirSync2, readFileSync } from "node:fs";
import * as nodeModule from "node:module";
import { createRequire } from "node:module";
import { dirname as dirname2, join as join2 } from "node:path";
import { Script } from "node:vm";

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
import { randomBytes } from "node:crypto";
import { closeSync, constants as fsConstants, fdatasyncSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
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
var TEMP_SUFFIX = ".part";
function tempPathFor(path) {
  return join(dirname(path), `.${randomBytes(8).toString("hex")}${TEMP_SUFFIX}`);
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

// dist/common/probe-mp4.js
var CHUNK = 64 * 1024;

// dist/common/exit-codes.js
var EXIT = {
  /** Success. */
  ok: 0,
  /** Finished, but with failed or unknown items; or a request failed. */
  failed: 1,
  /** Invalid workflow, config or usage, or another deflow run holds the state folder: nothing was sent. */
  usage: 2,
  /** Refused by the service before the first submission (auth, permission, balance). */
  refused: 3,
  /** Over budget (--max-cost or the balance). */
  overBudget: 4,
  /** Stopped by a daily rate limit (resumable). */
  dailyLimit: 5,
  /**
   * Finished: every item that could run succeeded, and only inputs refused at validation were
   * left out (`--keep-going`, `defaults.keep_going`). The action fails the step on it unless
   * `allow-left-out: true`.
   */
  leftOut: 6,
  /** A bug in deflow (unexpected error). */
  internal: 70,
  /** Interrupted (SIGINT). */
  interrupted: 130,
  /** Terminated (a second SIGTERM ends the process at once: 128 + 15). */
  terminated: 143
};
var ERROR_EXIT_CODES = {
  // The service answered with an error (client/errors, one class per code).
  E_API: EXIT.failed,
  E_API_AUTH: EXIT.refused,
  E_API_BALANCE: EXIT.refused,
  E_API_DAILY_LIMIT: EXIT.dailyLimit,
  E_API_KEY_LIMIT: EXIT.refused,
  E_API_NOT_FOUND: EXIT.failed,
  E_API_PERMISSION: EXIT.refused,
  E_API_RATE_LIMITED: EXIT.failed,
  E_API_REQUEST: EXIT.failed,
  E_API_RESPONSE: EXIT.failed,
  E_API_SERVER: EXIT.failed,
  E_API_VALIDATION: EXIT.failed,
  // A run's account check before it starts (cli/actions/account-check.ts): the key, the balance.
  E_AUTH: EXIT.refused,
  E_BALANCE_LOW: EXIT.refused,
  // Transport: the request or a transfer did not complete.
  E_NETWORK: EXIT.failed,
  E_RESPONSE_TOO_LARGE: EXIT.failed,
  E_TRANSFER: EXIT.failed,
  E_TRUNCATED: EXIT.failed,
  E_UNSAFE_URL: EXIT.failed,
  // Usage: a flag, an option or the environment is wrong; nothing was sent.
  E_USAGE_BASE_URL: EXIT.usage,
  E_USAGE_ENV_FILE: EXIT.usage,
  E_USAGE_INPUT: EXIT.usage,
  E_USAGE_KEY_FILE: EXIT.usage,
  E_USAGE_KEY_FLAG: EXIT.usage,
  E_USAGE_KEY_FORMAT: EXIT.usage,
  E_USAGE_NO_KEY: EXIT.usage,
  E_USAGE_NO_EVENTS: EXIT.usage,
  E_USAGE_NO_RUN: EXIT.usage,
  E_USAGE_OPTION: EXIT.usage,
  E_USAGE_PORT: EXIT.usage,
  E_USAGE_QUEUE_URL: EXIT.usage,
  E_USAGE_RUN_ID: EXIT.usage,
  E_USAGE_TASK: EXIT.usage,
  E_USAGE_TLS: EXIT.usage,
  E_USAGE_V1: EXIT.usage,
  E_USAGE_WEBHOOK_LISTEN: EXIT.usage,
  E_USAGE_WEBHOOK_URL: EXIT.usage,
  // Input files and configuration.
  E_CONFIG_PARSE: EXIT.usage,
  E_CONFIG_READ: EXIT.usage,
  E_CONFIG_SCHEMA: EXIT.usage,
  E_INPUT_FILE: EXIT.usage,
  E_INPUT_FILE_IN_JSON: EXIT.usage,
  E_INPUT_QUOTE: EXIT.usage,
  E_INIT_EXISTS: EXIT.usage,
  // The workflow (workflow/workflow-error.ts names each one).
  E_WORKFLOW_CYCLE: EXIT.usage,
  E_WORKFLOW_EXPRESSION: EXIT.usage,
  E_WORKFLOW_FIELD: EXIT.usage,
  E_WORKFLOW_FILE: EXIT.usage,
  E_WORKFLOW_FOR_EACH: EXIT.usage,
  E_WORKFLOW_INPUT: EXIT.usage,
  E_WORKFLOW_INPUT_FILE: EXIT.usage,
  E_WORKFLOW_INVALID: EXIT.usage,
  E_WORKFLOW_KIND: EXIT.usage,
  E_WORKFLOW_LIMIT: EXIT.usage,
  E_WORKFLOW_MODEL: EXIT.usage,
  E_WORKFLOW_REF: EXIT.usage,
  E_WORKFLOW_REQUIRED: EXIT.usage,
  E_WORKFLOW_SAVE_PATH: EXIT.usage,
  E_WORKFLOW_SCHEMA: EXIT.usage,
  E_WORKFLOW_TASK: EXIT.usage,
  E_WORKFLOW_TOO_LARGE: EXIT.usage,
  E_WORKFLOW_YAML: EXIT.usage,
  // Jobs and their results.
  E_INTERNAL: EXIT.internal,
  E_JOB_FAILED: EXIT.failed,
  E_JOB_TIMEOUT: EXIT.failed,
  E_JOB_UNKNOWN: EXIT.failed,
  E_POLL_DEADLINE: EXIT.failed,
  E_RESULT_JSON: EXIT.failed,
  E_RESULT_LOST: EXIT.failed,
  E_RESULT_MISSING: EXIT.failed,
  E_RESULT_NOT_DOWNLOADED: EXIT.failed,
  E_UPSTREAM_TOO_LARGE: EXIT.failed,
  E_SAVE_NOTHING: EXIT.failed,
  E_RUN_STOPPED: EXIT.failed,
  E_QUOTE_UNAVAILABLE: EXIT.failed,
  E_INTERRUPTED: EXIT.interrupted,
  // Durable state: journal, lock, cache, reports.
  E_CACHE_BLOB_MISSING: EXIT.failed,
  E_CACHE_KEY: EXIT.failed,
  E_JOURNAL_CLOSED: EXIT.failed,
  E_JOURNAL_CORRUPT: EXIT.failed,
  E_JOURNAL_EXISTS: EXIT.failed,
  E_JOURNAL_MISSING: EXIT.failed,
  E_JOURNAL_VERSION: EXIT.failed,
  E_JOURNAL_WRITE: EXIT.failed,
  E_STATE_DIR: EXIT.usage,
  E_STATE_LOCKED: EXIT.usage,
  E_REPORT_WRITE: EXIT.failed,
  E_INIT_WRITE: EXIT.failed,
  // Any file deflow writes (common/durable-fs.ts): named with its path.
  E_DISK_FULL: EXIT.failed,
  E_OUTPUT_NOT_FILE: EXIT.failed,
  E_OUTPUT_NOT_WRITABLE: EXIT.failed,
  // Distributed mode (engine/queue): Redis, the queue's runs, the workers.
  E_QUEUE_CONNECT: EXIT.failed,
  E_QUEUE_LOCK_LOST: EXIT.failed,
  E_QUEUE_RESULT_FETCH: EXIT.failed,
  E_QUEUE_RUN: EXIT.failed,
  E_QUEUE_WORKER: EXIT.failed,
  E_QUEUE_WORKFLOW: EXIT.failed,
  // The emulator.
  E_EMULATOR_LISTEN: EXIT.failed,
  E_EMULATOR_PORT_IN_USE: EXIT.failed
};
var RUN_STATUS_EXIT = {
  done: EXIT.ok,
  "left-out": EXIT.leftOut,
  failed: EXIT.failed,
  refused: EXIT.refused,
  "over-budget": EXIT.overBudget,
  "daily-limit": EXIT.dailyLimit,
  interrupted: EXIT.interrupted
};
var QUOTE_VERDICT_EXIT = {
  within: EXIT.ok,
  "no-budget": EXIT.ok,
  unavailable: EXIT.failed,
  "over-budget": EXIT.overBudget,
  unpriced: EXIT.overBudget,
  "over-balance": EXIT.overBudget
};

// dist/common/png.js
var SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

// dist/cli/start-bundle.js
var CODE_CACHE_ENV = "DEFLOW_CODE_CACHE";
function codeCacheFile(bundle, bytes) {
  const digest = createHash("sha1").update(bytes).digest("hex").slice(0, 16);
  return join2(dirname2(bundle), "code-cache", `${process.versions.v8}-${process.arch}-${digest}.bin`);
}
function loadBundle(bundle, mode = process.env[CODE_CACHE_ENV]) {
  const off = mode === "off";
  const bytes = readFileSync(bundle);
  const cacheFile = codeCacheFile(bundle, bytes);
  let cachedData;
  if (!off) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
    }
  }
  const source = (isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8")).replace(/^#!/, "//");
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}
})`, {
    filename: bundle,
    ...cachedData === void 0 ? {} : { cachedData }
  });
  const verdict = off ? "off" : cachedData === void 0 ? "missing" : script.cachedDataRejected === true ? "rejected" : "used";
  const module = { exports: {} };
  const run = script.runInThisContext();
  run(module.exports, createRequire(bundle), module, bundle, dirname2(bundle));
  return {
    exports: module.exports,
    verdict,
    cacheFile,
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
  const loaded = loadBundle(bundle, mode);
  if (verbose)
    process.stderr.write(`deflow: code cache ${loaded.verdict} (${loaded.cacheFile})
`);
  if (loaded.verdict === "missing" || loaded.verdict === "rejected") {
    process.once("exit", () => {
      const written = loaded.writeCache();
      if (verbose)
        process.stderr.write(`deflow: code cache ${written ? "written" : "not written"} (${loaded.cacheFile})
`);
    });
  }
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
