import { describe, expect, it } from 'vitest';
import { loadModelSource } from '../../src/workflow/models/model-source.js';
import { useTempDirs, writeTree } from './helpers.js';
import { join } from 'node:path';

const tempDir = useTempDirs();
const model = { name: 'X', slug: 'X1', inference_types: ['img2txt'], info: { limits: {}, features: {}, defaults: {} } };

describe('the model source', () => {
  it('uses the live list when a fetcher is given and not offline', async () => {
    const { source } = await loadModelSource({ fetchModels: async () => [model] });
    expect([source.kind, source.models.map((m) => m.slug)]).toEqual(['service', ['X1']]);
  });

  it('falls back to the cache when the fetch fails, and says so', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'models.json': JSON.stringify({ data: { data: [model] } }) });
    const result = await loadModelSource({ fetchModels: () => Promise.reject(new Error('offline')), cacheFile: join(dir, 'models.json') });
    expect(result.source.kind).toBe('cache');
    expect(result.warnings).toEqual(['cannot fetch the model list (offline); using a cached copy']);
  });

  it('never calls the fetcher when offline, and uses the built-in catalogue without a cache', async () => {
    const { source } = await loadModelSource({ offline: true, fetchModels: () => Promise.reject(new Error('called')), cacheFile: '/nonexistent/models.json' });
    expect(source.kind).toBe('built-in');
    expect(source.find('Kokoro')?.slug).toBe('Kokoro');
  });

  it('ignores a broken cache with a warning', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'models.json': '{"models": [{"slug": 1}]}' });
    const result = await loadModelSource({ offline: true, cacheFile: join(dir, 'models.json') });
    expect(result.source.kind).toBe('built-in');
    expect(result.warnings).toEqual([`ignoring the model cache ${join(dir, 'models.json')}: some entries are not models (slug, inference_types, info)`]);
  });
});
