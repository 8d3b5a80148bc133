export { createBlobStore } from './blob-store.js';
export type { BlobStore } from './blob-store.js';
export { CacheAdapter } from './cache-adapter.js';
export { NO_CACHE } from './cache-lookup.js';
export type { CacheLookup, CacheQuery } from './cache-lookup.js';
export { createFileDigester } from './file-digest.js';
export { createResultCache } from './result-cache.js';
