import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../../src/engine/cache/blob-store.js';
import { createFileDigester, fileDigest } from '../../../src/engine/cache/file-digest.js';
import { canonicalJson } from '../../../src/common/canonical-json.js';
import { type CacheEntry, type CacheKeyInput, cacheKey, createResultCache } from '../../../src/engine/cache/result-cache.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deflow-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base: CacheKeyInput = {
  task: 'audio.transcribe',
  params: { model: 'WhisperLargeV3', include_ts: false, source_file: 'episodes/ep1.mp3' },
  fileDigests: { source_file: 'a'.repeat(64) },
  upstream: [],
};

function entry(key: string, extra: Partial<CacheEntry> = {}): CacheEntry {
  return { key, task: 'audio.transcribe', request_id: 'req-1', cost: 0.02, created_at: 1_790_000_000_000, result: { kind: 'text', text: 'hello' }, ...extra };
}

describe('cacheKey', () => {
  it('is a sha256 hex that ignores key order and webhook fields', () => {
    const key = cacheKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey({ ...base, params: { include_ts: false, source_file: 'episodes/ep1.mp3', model: 'WhisperLargeV3' } })).toBe(key);
    expect(
      cacheKey({ ...base, params: { ...base.params, webhook_url: 'https://hooks.example/x', webhook_secret: 's'.repeat(32) } }),
    ).toBe(key);
  });

  it('keys input files by content, not by path', () => {
    const key = cacheKey(base);
    expect(cacheKey({ ...base, params: { ...base.params, source_file: 'renamed/ep1.mp3' } })).toBe(key);
    expect(cacheKey({ ...base, fileDigests: { source_file: 'b'.repeat(64) } })).not.toBe(key);
  });

  it('changes with the task, any parameter, or the upstream chain', () => {
    const key = cacheKey(base);
    expect(cacheKey({ ...base, task: 'video.describe' })).not.toBe(key);
    expect(cacheKey({ ...base, params: { ...base.params, include_ts: true } })).not.toBe(key);
    expect(cacheKey({ ...base, params: { ...base.params, extra: { b: 1, a: [1, 'x'] } } })).not.toBe(key);
    expect(cacheKey({ ...base, upstream: ['c'.repeat(64)] })).not.toBe(cacheKey({ ...base, upstream: ['d'.repeat(64)] }));
  });

  it('serialises canonically and refuses values JSON cannot carry', () => {
    expect(canonicalJson({ b: [2, { z: 1, a: null }], a: 'x', u: undefined })).toBe('{"a":"x","b":[2,{"a":null,"z":1}]}');
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(expect.objectContaining({ code: 'E_CACHE_KEY' }));
    expect(() => canonicalJson({ d: new Date(0) })).toThrow(expect.objectContaining({ code: 'E_CACHE_KEY' }));
    expect(() => canonicalJson({ f: () => 1 })).toThrow(expect.objectContaining({ code: 'E_CACHE_KEY' }));
  });
});

describe('result cache', () => {
  const open = () => createResultCache({ dir: join(dir, 'cache'), blobs: createBlobStore(join(dir, 'blobs')) });

  it('round-trips an entry through cache/ab/<key>.json', async () => {
    const cache = open();
    const key = cacheKey(base);
    expect(await cache.get(key)).toBeUndefined();
    await cache.put(entry(key));
    expect(await cache.get(key)).toEqual(entry(key));
    expect(JSON.parse(readFileSync(join(dir, 'cache', key.slice(0, 2), `${key}.json`), 'utf8'))).toMatchObject({ v: 1, key });
  });

  it('keeps the first entry of a key (entries are immutable)', async () => {
    const cache = open();
    const key = cacheKey(base);
    await cache.put(entry(key, { request_id: 'first' }));
    await cache.put(entry(key, { request_id: 'second' }));
    expect((await cache.get(key))?.request_id).toBe('first');
  });

  it('survives concurrent writers of the same key with one complete entry and no leftovers', async () => {
    const a = open();
    const b = open();
    const key = cacheKey(base);
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).put(entry(key, { request_id: `req-${i}` }))));
    const got = await a.get(key);
    expect(got?.request_id).toMatch(/^req-\d+$/);
    expect(readdirSync(join(dir, 'cache', key.slice(0, 2)))).toEqual([`${key}.json`]);
  });

  it('misses when the entry names a blob that is gone or changed size', async () => {
    const blobs = createBlobStore(join(dir, 'blobs'));
    const cache = createResultCache({ dir: join(dir, 'cache'), blobs });
    writeFileSync(join(dir, 'r.png'), 'png bytes');
    const blob = await blobs.putFile(join(dir, 'r.png'));
    const key = cacheKey({ ...base, task: 'image.generate' });
    await cache.put(entry(key, { result: { kind: 'image', blob, ext: 'png', size: 9 } }));
    expect((await cache.get(key))?.result.blob).toBe(blob);
    writeFileSync(blobs.path(blob), 'edited in place through a hard link');
    expect(await cache.get(key)).toBeUndefined();
    rmSync(blobs.path(blob));
    expect(await cache.get(key)).toBeUndefined();
  });

  it('treats a garbled entry as a miss', async () => {
    const cache = open();
    const key = cacheKey(base);
    await cache.put(entry(key));
    writeFileSync(join(dir, 'cache', key.slice(0, 2), `${key}.json`), '{"v":1,"key":');
    expect(await cache.get(key)).toBeUndefined();
  });
});

describe('file digests', () => {
  it('hashes a file by content and sees it change', async () => {
    const path = join(dir, 'in.wav');
    writeFileSync(path, 'first');
    expect(await fileDigest(path)).toBe(createHash('sha256').update('first').digest('hex'));
    const digester = createFileDigester();
    const first = await digester.digest(path);
    expect(await digester.digest(path)).toBe(first);
    writeFileSync(path, 'other'); // same size
    utimesSync(path, new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    expect(await digester.digest(path)).toBe(createHash('sha256').update('other').digest('hex'));
  });
});
