/**
 * The result cache: a job whose task, resolved parameters, input file contents and upstream
 * chain are unchanged is not paid for again. Entries are immutable files
 * `cache/ab/<key>.json`, each written aside, flushed and renamed into place, so two runs can
 * share the cache without a lock or an index.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { canonicalJson } from '../../common/index.js';
import type { ResultKind } from '../../service/index.js';
import type { BlobStore } from './blob-store.js';
import { mkdirDurable, writeFileAtomic } from '../../common/index.js';

/** Parameters that change where a result is reported, never what it is. */
const NOT_PART_OF_KEY: ReadonlySet<string> = new Set(['webhook_url', 'webhook_secret']);

export interface CacheKeyInput {
  readonly task: string;
  /** The resolved request parameters. */
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * sha256 of each input file by field (an array for multi-file fields). These fields are left
   * out of `params`, so the same content under another path is still a hit.
   */
  readonly fileDigests: Readonly<Record<string, string | readonly string[]>>;
  /** Cache keys of the upstream nodes whose results feed this one, in input order. */
  readonly upstream: readonly string[];
}

/** The cache key of a job: sha256 hex over a canonical JSON of its inputs. */
export function cacheKey(input: CacheKeyInput): string {
  const params: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input.params)) {
    if (!NOT_PART_OF_KEY.has(name) && !Object.hasOwn(input.fileDigests, name)) params[name] = value;
  }
  const canonical = canonicalJson({ v: 1, task: input.task, params, files: input.fileDigests, upstream: input.upstream });
  return createHash('sha256').update(canonical).digest('hex');
}

/** A cached result. Media results point into the blob store by sha256. */
export interface CacheResult {
  readonly kind: ResultKind;
  readonly text?: string;
  readonly json?: unknown;
  readonly blob?: string;
  /** File extension of the blob, without the dot (`png`). */
  readonly ext?: string;
  /** Bytes of the blob. */
  readonly size?: number;
}

export interface CacheEntry {
  readonly key: string;
  readonly task: string;
  /** The job that produced the result. */
  readonly request_id: string | null;
  /** USD paid for it (what a hit saves). */
  readonly cost: number | null;
  /** ms since the epoch. */
  readonly created_at: number;
  readonly result: CacheResult;
}

export interface ResultCache {
  /** The entry for `key`, or undefined on a miss (also when its blob is gone or resized). */
  get(key: string): Promise<CacheEntry | undefined>;
  /** Stores an entry. Entries are immutable: an existing entry for the key is kept. */
  put(entry: CacheEntry): Promise<void>;
}

export interface ResultCacheOptions {
  /** By convention `<stateDir>/cache`. */
  readonly dir: string;
  /** Checks blob-backed entries still have their file. */
  readonly blobs: BlobStore;
}

const KEY = /^[0-9a-f]{64}$/;

export function createResultCache(options: ResultCacheOptions): ResultCache {
  const pathOf = (key: string): string => {
    if (!KEY.test(key)) throw new TypeError(`cache key: expected 64 lowercase hex digits, got ${JSON.stringify(key)}`);
    return join(options.dir, key.slice(0, 2), `${key}.json`);
  };
  return {
    async get(key) {
      let entry: CacheEntry & { v?: unknown };
      try {
        entry = JSON.parse(await readFile(pathOf(key), 'utf8')) as CacheEntry & { v?: unknown };
      } catch {
        return undefined; // missing; a garbled entry (written by someone else) is a miss too
      }
      if (entry.v !== 1 || entry.key !== key || typeof entry.result !== 'object' || entry.result === null) return undefined;
      const { blob, size } = entry.result;
      if (blob !== undefined && !(await options.blobs.has(blob, size))) return undefined;
      const { v: _version, ...rest } = entry;
      return rest;
    },

    async put(entry) {
      const path = pathOf(entry.key);
      if (existsSync(path)) return;
      mkdirDurable(dirname(path));
      writeFileAtomic(path, `${JSON.stringify({ v: 1, ...entry })}\n`);
    },
  };
}
