/**
 * The quote cache: price answers kept on disk with their parameters and age, so a second
 * quote of an unchanged workflow within the TTL sends no price request. One JSON file,
 * `quotes.json` in the state folder, replaced atomically. Answers are scoped to the service
 * they came from (its base URL), so an emulator's prices never stand in for the real ones.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../common/index.js';
import { mkdirDurable, writeFileAtomic } from '../../common/index.js';

export const QUOTE_CACHE_FILE = 'quotes.json';
/** @default 24 h */
export const DEFAULT_QUOTE_TTL_MS = 24 * 3600 * 1000;

/** One cached answer. */
export interface QuoteCacheEntry {
  readonly task: string;
  /** The price-twin parameters (files by digest; long texts cut), for people reading the file. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly price: number;
  /** When it was answered, ms since the epoch on the quoting clock. */
  readonly at: number;
  /** The service that answered (its base URL). */
  readonly scope: string;
}

interface CacheFile {
  readonly format_version: 1;
  readonly entries: Record<string, QuoteCacheEntry>;
}

export interface QuoteCache {
  /** The cached price of request `key`, with its age, when younger than the TTL. */
  get(key: string): { readonly price: number; readonly ageMs: number } | undefined;
  /** Records an answer (kept in memory until {@link QuoteCache.save}). */
  set(key: string, entry: Omit<QuoteCacheEntry, 'at' | 'scope'>): void;
  /** Writes the cache file atomically, dropping expired answers. No-op when nothing changed or disabled. */
  save(): void;
}

export interface OpenQuoteCacheOptions {
  /** The state folder; the cache is `quotes.json` in it. */
  readonly stateDir: string;
  /** The service base URL the answers come from. */
  readonly scope: string;
  readonly clock: Clock;
  /** @default 24 h */
  readonly ttlMs?: number;
  /** false (`--no-quote-cache`): nothing is read or written. @default true */
  readonly enabled?: boolean;
}

const entryId = (scope: string, key: string): string => createHash('sha256').update(`${scope}\0${key}`).digest('hex');

/** Opens the quote cache of a state folder (a missing or unreadable file is an empty cache). */
export async function openQuoteCache(options: OpenQuoteCacheOptions): Promise<QuoteCache> {
  const ttl = options.ttlMs ?? DEFAULT_QUOTE_TTL_MS;
  const path = join(options.stateDir, QUOTE_CACHE_FILE);
  const enabled = options.enabled !== false;
  const entries: Record<string, QuoteCacheEntry> = enabled ? await readEntries(path) : {};
  let dirty = false;
  return {
    get(key) {
      if (!enabled) return undefined;
      const entry = entries[entryId(options.scope, key)];
      if (!entry || entry.scope !== options.scope) return undefined;
      const ageMs = Math.max(0, options.clock.now() - entry.at);
      return ageMs <= ttl ? { price: entry.price, ageMs } : undefined;
    },
    set(key, entry) {
      if (!enabled) return;
      entries[entryId(options.scope, key)] = { ...entry, params: trimParams(entry.params), at: options.clock.now(), scope: options.scope };
      dirty = true;
    },
    save() {
      if (!enabled || !dirty) return;
      const now = options.clock.now();
      const kept: Record<string, QuoteCacheEntry> = {};
      for (const [id, entry] of Object.entries(entries)) if (now - entry.at <= ttl) kept[id] = entry;
      mkdirDurable(options.stateDir);
      const file: CacheFile = { format_version: 1, entries: kept };
      writeFileAtomic(path, `${JSON.stringify(file)}\n`);
      dirty = false;
    },
  };
}

async function readEntries(path: string): Promise<Record<string, QuoteCacheEntry>> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<CacheFile>;
    if (parsed.format_version !== 1 || typeof parsed.entries !== 'object' || parsed.entries === null) return {};
    const out: Record<string, QuoteCacheEntry> = {};
    for (const [id, entry] of Object.entries(parsed.entries)) {
      if (typeof entry?.price === 'number' && typeof entry.at === 'number' && typeof entry.scope === 'string') out[id] = entry;
    }
    return out;
  } catch {
    // A missing or damaged cache only costs price requests: start empty.
    return {};
  }
}

const MAX_SHOWN = 200;

/** Long texts (an embedding input) would bloat the file; the key already identifies them. */
function trimParams(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    out[name] = typeof value === 'string' && value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}… (${value.length} characters)` : value;
  }
  return out;
}
