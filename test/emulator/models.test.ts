import { describe, expect, it } from 'vitest';
import { API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';

describe('GET /api/v2/models and /api/v1/client/models', () => {
  it('answers { data: { data: [model] } } with meta.last_page 1 for the whole catalogue by default', async () => {
    const emu = await useEmulator({ config: withKeys() });
    for (const path of ['/api/v2/models', '/api/v1/client/models']) {
      const res = await call(emu, 'GET', path, { key: API_KEY });
      expect(res.status).toBe(200);
      const models = res.body.data.data;
      expect(Array.isArray(models)).toBe(true);
      expect(res.body.data.meta.last_page).toBe(1);
      expect(res.body.data.meta.per_page).toBe(50);
      expect(res.body.meta.last_page).toBe(1);
      expect(res.body.links).toEqual(res.body.data.links);
      const slugs = models.map((m: { slug: string }) => m.slug);
      for (const slug of ['Flux1schnell', 'ZImageTurbo_INT8', 'Kokoro', 'WhisperLargeV3', 'AceStep_1_5_Turbo', 'Bge_M3_FP16', 'Ben2', 'RealESRGAN_x4']) {
        expect(slugs).toContain(slug);
      }
      const flux = models.find((m: { slug: string }) => m.slug === 'Flux1schnell');
      expect(flux.inference_types).toContain('txt2img');
      expect(Object.keys(flux.info).sort()).toEqual(['defaults', 'features', 'limits']);
      expect(res.body.data.meta.total).toBe(models.length);
    }
  });

  it('pages with limit and page; limit is clamped to 1–100', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const all = (await call(emu, 'GET', '/api/v2/models', { key: API_KEY })).body.data.data as { slug: string }[];
    const page2 = await call(emu, 'GET', '/api/v2/models?limit=5&page=2', { key: API_KEY });
    expect(page2.body.data.data.map((m: { slug: string }) => m.slug)).toEqual(all.slice(5, 10).map((m) => m.slug));
    expect(page2.body.data.meta).toMatchObject({ current_page: 2, per_page: 5, from: 6, to: 10, last_page: Math.ceil(all.length / 5), total: all.length });
    expect((await call(emu, 'GET', '/api/v2/models?limit=1000', { key: API_KEY })).body.data.meta.per_page).toBe(100);
    expect((await call(emu, 'GET', '/api/v2/models?limit=-3', { key: API_KEY })).body.data.meta.per_page).toBe(1);
  });

  it('per_page is an alias of limit, ignored when limit is present', async () => {
    const emu = await useEmulator({ config: withKeys() });
    expect((await call(emu, 'GET', '/api/v1/client/models?per_page=15&page=1', { key: API_KEY })).body.data.meta.per_page).toBe(15);
    expect((await call(emu, 'GET', '/api/v2/models?per_page=15&limit=3', { key: API_KEY })).body.data.data).toHaveLength(3);
  });

  it('filters by filter[inference_types]=a,b', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', `/api/v2/models?${encodeURIComponent('filter[inference_types]')}=txt2img,txt2embedding`, { key: API_KEY });
    const models = res.body.data.data as { slug: string; inference_types: string[] }[];
    expect(models.length).toBeGreaterThan(0);
    for (const m of models) expect(m.inference_types.some((t) => t === 'txt2img' || t === 'txt2embedding')).toBe(true);
    expect(models.map((m) => m.slug)).toContain('Bge_M3_FP16');
    expect(models.map((m) => m.slug)).not.toContain('Kokoro');
  });
});
