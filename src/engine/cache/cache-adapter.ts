/**
 * The result cache as the run engine asks it (a {@link CacheLookup}). A job's key covers its
 * task, its resolved parameters, the content of every file it uploads (by sha256, so a file
 * moved or renamed is still a hit, and a file edited in place is not) and the keys of the
 * upstream jobs it read: change an input of the first step of a chain and every job after
 * it misses. A hit costs nothing: its result comes from the state folder, and media are
 * materialised from the blob store into the step's `save` path by the engine.
 */
import { basename, dirname, resolve } from 'node:path';
import type { FieldValue } from '../../client/index.js';
import { isFileRef, isStreamRef } from '../../client/index.js';
import type { Clock } from '../../common/index.js';
import type { GraphStep, JobGraph } from '../../workflow/index.js';
import type { BlobStore } from './blob-store.js';
import type { CacheAnswer, CacheLookup, CacheQuery } from './cache-lookup.js';
import { createFileDigester, type FileDigester } from './file-digest.js';
import type { NodeResult } from '../contracts/node-result.js';
import { type CacheEntry, type CacheResult, cacheKey, type ResultCache } from './result-cache.js';

/** `result_url` of a cached media result: the engine maps it back to the blob when a later step uploads it. */
export const CACHED_RESULT_SCHEME = 'deflow-cache://';

export interface CacheAdapterOptions {
  readonly graph: JobGraph;
  readonly cache: ResultCache;
  readonly blobs: BlobStore;
  readonly clock: Clock;
  /** Cache keys of nodes done in an earlier session of this run (resume), by graph index. */
  readonly knownKeys?: ReadonlyMap<number, string>;
  /** @default a new digester (each file hashed once per run) */
  readonly digester?: FileDigester;
}

/** A key part for an upstream job that has no key (uncacheable): its request says it all. */
const NO_UPSTREAM_KEY = '-';

/** A streamed upload cannot be keyed without reading it twice: such a job is not cached. */
const STREAM = Symbol('stream');

export class CacheAdapter implements CacheLookup {
  /** Keys of this run's nodes, for their readers' keys. */
  private readonly keys = new Map<number, string>();
  private readonly digester: FileDigester;
  /** Hits served, and what they would have cost. */
  hits = 0;
  saved = 0;

  constructor(private readonly options: CacheAdapterOptions) {
    this.digester = options.digester ?? createFileDigester();
    for (const [id, key] of options.knownKeys ?? []) this.keys.set(id, key);
  }

  async lookup(query: CacheQuery, options: { readonly keyOnly?: boolean } = {}): Promise<CacheAnswer> {
    const { key, entry } = await this.find(query, options.keyOnly === true);
    if (entry === undefined) return { key, hit: null };
    this.hits++;
    this.saved += entry.cost ?? 0;
    return { key, hit: toNodeResult(entry) };
  }

  async peek(query: CacheQuery): Promise<{ result: NodeResult; cost: number | null } | null> {
    const { entry } = await this.find(query);
    return entry === undefined ? null : { result: toNodeResult(entry), cost: entry.cost };
  }

  /** The job's key and its stored entry (`keyOnly`: the key alone, nothing read). */
  private async find(query: CacheQuery, keyOnly = false): Promise<{ key: string | null; entry: CacheEntry | undefined }> {
    const step = this.options.graph.step(query.node.step);
    if (!step.def.cache) return { key: null, entry: undefined };
    const key = await this.keyOf(query);
    if (key === null) return { key: null, entry: undefined };
    this.keys.set(query.node.id, key);
    if (keyOnly) return { key, entry: undefined };
    const entry = await this.options.cache.get(key);
    if (entry === undefined || (needsContent(step) && !hasContent(entry.result))) return { key, entry: undefined };
    return { key, entry };
  }

  know(id: number, key: string): void {
    this.keys.set(id, key);
  }

  async store(key: string, query: CacheQuery, result: NodeResult): Promise<void> {
    this.keys.set(query.node.id, key);
    const entry: CacheEntry = {
      key,
      task: query.task,
      request_id: result.requestId,
      cost: result.cost,
      created_at: this.options.clock.now(),
      result: toCacheResult(result),
    };
    await this.options.cache.put(entry);
  }

  /** The job's key, or null when one of its values cannot be keyed (a stream, a non-JSON value). */
  private async keyOf(query: CacheQuery): Promise<string | null> {
    const params: Record<string, unknown> = {};
    const fileDigests: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(query.fields)) {
      const files = await this.digestFiles(value);
      if (files === STREAM) return null;
      if (files === undefined) params[name] = value;
      else fileDigests[name] = files;
    }
    const upstream = query.upstream.map((node) => this.keys.get(node.id) ?? NO_UPSTREAM_KEY);
    try {
      return cacheKey({ task: query.task, params, fileDigests, upstream });
    } catch {
      return null; // E_CACHE_KEY: a value JSON cannot carry faithfully is not worth a wrong hit
    }
  }

  /** Digests of a file field's files; undefined when the value is not a file field. */
  private async digestFiles(value: FieldValue): Promise<string | string[] | typeof STREAM | undefined> {
    if (isStreamRef(value)) return STREAM;
    if (isFileRef(value)) return this.digestFile(value.path);
    if (!Array.isArray(value) || value.length === 0 || !value.every((v) => isFileRef(v) || isStreamRef(v))) return undefined;
    const digests: string[] = [];
    for (const item of value as readonly FieldValue[]) {
      if (!isFileRef(item)) return STREAM;
      digests.push(await this.digestFile(item.path));
    }
    return digests;
  }

  private digestFile(path: string): Promise<string> {
    // An upstream result in the blob store is named by its sha256: no need to read it again.
    const name = basename(path);
    if (/^[0-9a-f]{64}$/.test(name) && resolve(dirname(dirname(path))) === resolve(this.options.blobs.dir)) return Promise.resolve(name);
    return this.digester.digest(path);
  }
}

/** Whether a step's results are read downstream or saved (a hit must then carry content). */
function needsContent(step: GraphStep): boolean {
  return step.downstream.length > 0 || step.def.save !== undefined;
}

function hasContent(result: CacheResult): boolean {
  return result.blob !== undefined || result.text !== undefined || result.json !== undefined;
}

function toCacheResult(result: NodeResult): CacheResult {
  return {
    kind: result.kind,
    ...(result.text === undefined ? {} : { text: result.text }),
    ...(result.json === undefined ? {} : { json: result.json }),
    ...(result.blob === undefined ? {} : { blob: result.blob }),
    ...(result.ext === undefined ? {} : { ext: result.ext }),
    ...(result.size === undefined ? {} : { size: result.size }),
  };
}

function toNodeResult(entry: CacheEntry): NodeResult {
  const { result } = entry;
  return {
    kind: result.kind,
    requestId: entry.request_id,
    // The job's own URL has expired; a later step that uploads this result gets the blob.
    url: result.blob === undefined ? null : `${CACHED_RESULT_SCHEME}${result.blob}${result.ext ? `.${result.ext}` : ''}`,
    cost: 0,
    ...(result.text === undefined ? {} : { text: result.text }),
    ...(result.json === undefined ? {} : { json: result.json }),
    ...(result.blob === undefined ? {} : { blob: result.blob }),
    ...(result.ext === undefined ? {} : { ext: result.ext }),
    ...(result.size === undefined ? {} : { size: result.size }),
  };
}
