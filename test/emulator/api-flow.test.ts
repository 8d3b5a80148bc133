import { describe, expect, it } from 'vitest';
import { FormData } from 'undici';
import { makePng } from '../../src/emulator/media/index.js';
import { API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { createManualClock } from '../helpers/manual-clock.js';

const FLUX = { prompt: 'a lighthouse at dusk', model: 'Flux1schnell', width: 256, height: 256, steps: 4, seed: 1 };

describe('submission, status and result', () => {
  it('a v2 submission is polled on v2 and v1 until done, then its result downloads without auth', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({ clock, config: withKeys() });
    const submitted = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX });
    expect(submitted.status).toBe(200);
    expect(Object.keys(submitted.body)).toEqual(['data']);
    const id: string = submitted.body.data.request_id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const early = await call(emu, 'GET', `/api/v1/client/request-status/${id}`, { key: API_KEY });
    expect(early.status).toBe(200);
    expect(['pending', 'processing']).toContain(early.body.data.status);
    expect(early.body.data).toMatchObject({ result_url: null, result: null, preview: null });

    clock.advance(3_600_000);
    const done = await call(emu, 'GET', `/api/v2/jobs/${id}`, { key: API_KEY });
    expect(done.body.data).toMatchObject({ status: 'done', progress: 100, result: null, preview: null });
    const resultUrl = new URL(done.body.data.result_url);
    expect(resultUrl.origin).toBe(emu.url);

    const file = await call(emu, 'GET', resultUrl.pathname + resultUrl.search);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');

    expect(emu.stats()).toMatchObject({ submissions: 1, polls: 2, downloads: 1, quotes: 0 });
    const jobs = (await call(emu, 'GET', '/_emulator/jobs')).body;
    expect(jobs).toEqual([
      {
        request_id: id,
        task: 'image.generate',
        status: 'done',
        created_at: new Date(clock.now() - 3_600_000).toISOString(),
        finished_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
        endpoint: '/api/v2/images/generations',
        model: 'Flux1schnell',
        price: expect.any(Number),
        params_digest: expect.any(String),
        progress: 100,
      },
    ]);
  });

  it('a v1 submission is polled at the v2 job path', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const submitted = await call(emu, 'POST', '/api/v1/client/txt2img', { key: API_KEY, json: FLUX });
    const status = await call(emu, 'GET', `/api/v2/jobs/${submitted.body.data.request_id}`, { key: API_KEY });
    expect(status.status).toBe(200);
    expect(status.body.data.status).toBeDefined();
  });

  it('an unknown job is 404 with the default envelope; an unknown result file is 404', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/jobs/not-a-job', { key: API_KEY });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'No query results for the requested resource.', errors: [], statusCode: 404, data: {} });
    expect((await call(emu, 'GET', '/results/not-a-job/result.png')).status).toBe(404);
  });
});

describe('price twins', () => {
  it('v2 /price and v1 /price-calculation answer { data: { price } } alike and create no job', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const v2 = await call(emu, 'POST', '/api/v2/images/generations/price', { key: API_KEY, json: FLUX });
    const v1 = await call(emu, 'POST', '/api/v1/client/txt2img/price-calculation', { key: API_KEY, json: FLUX });
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual({ data: { price: expect.any(Number) } });
    expect(v1.body).toEqual(v2.body);
    expect(emu.jobs()).toEqual([]);
    expect(emu.stats().quotes).toBe(2);
  });

  it('the v2 music quote takes model, duration and inference_steps', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/audio/music/price', { key: API_KEY, json: { model: 'AceStep_1_5_Turbo', duration: 30, inference_steps: 8, caption: 'calm piano' } });
    expect(res.status).toBe(200);
    expect(res.body.data.price).toBeGreaterThan(0);
  });
});

describe('validation answers', () => {
  it('422 keys errors by field and summarises them in message', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: {} });
    expect(res.status).toBe(422);
    expect(res.body.statusCode).toBe(422);
    expect(res.body.data).toEqual({});
    expect(res.body.errors.prompt).toEqual(['The prompt field is required.']);
    expect(res.body.errors.model).toEqual(['The model field is required.']);
    expect(res.body.message).toMatch(/^The prompt field is required\. \(and \d+ more errors?\)$/);
    expect(res.body.code).toBeUndefined();
  });

  it('an unknown model is 422 with errors.model, not 404', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: { ...FLUX, model: 'NoSuchModel' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.model).toBeDefined();
  });

  it('v1 prompt/speech answers errors as [{ field, messages }]', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v1/client/prompt/speech', { key: API_KEY, json: {} });
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.errors)).toBe(true);
    expect(res.body.errors[0]).toEqual({ field: 'prompt', messages: ['The prompt field is required.'] });
    expect(res.body).toMatchObject({ statusCode: 422, data: {} });
  });
});

describe('prompt enhancement', () => {
  it('v2 answers { prompt, negative_prompt } at the top level and charges at once', async () => {
    const emu = await useEmulator({ config: withKeys({ balance: 10 }) });
    const body = { prompt: 'a cat on a mat', type: 'images.generations', model_slug: 'Flux1schnell', negative_prompt: 'blurry photo' };
    const price = (await call(emu, 'POST', '/api/v2/prompts/enhancements/price', { key: API_KEY, json: body })).body.data.price as number;
    const res = await call(emu, 'POST', '/api/v2/prompts/enhancements', { key: API_KEY, json: body });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['negative_prompt', 'prompt']);
    expect(typeof res.body.prompt).toBe('string');
    const balance = (await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY })).body.balance;
    expect(balance).toBeCloseTo(10 - price, 9);
    expect(emu.jobs()).toEqual([]);
  });

  it('v1 prompt/speech answers { prompt }', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v1/client/prompt/speech', { key: API_KEY, json: { prompt: 'hello there', lang_code: 'en' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['prompt']);
  });
});

describe('request bodies', () => {
  it('a multipart upload is validated by content and accepted', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const form = new FormData();
    form.append('image', new Blob([makePng({ width: 64, height: 64 })]), 'image.bin');
    form.append('model', 'RealESRGAN_x4');
    const res = await call(emu, 'POST', '/api/v2/images/upscales', { key: API_KEY, body: form });
    expect(res.status).toBe(200);
    expect(res.body.data.request_id).toBeDefined();
  });

  it('an empty multipart part counts as absent (n8n sends "" for unset fields)', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const form = new FormData();
    for (const [k, v] of Object.entries(FLUX)) form.append(k, String(v));
    form.append('negative_prompt', '');
    const ok = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, body: form });
    expect(ok.status).toBe(200);
    const missing = new FormData();
    missing.append('prompt', '');
    missing.append('model', 'Flux1schnell');
    const res = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, body: missing });
    expect(res.status).toBe(422);
    expect(res.body.errors.prompt).toEqual(['The prompt field is required.']);
  });

  it('a url-encoded body is read like a form', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const body = new URLSearchParams(Object.entries(FLUX).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const res = await call(emu, 'POST', '/api/v1/client/txt2img', {
      key: API_KEY,
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
  });

  it('uploads are removed from disk after the answer', async () => {
    const { mkdtemp, readdir, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const root = await mkdtemp(`${tmpdir()}/deflow-upload-test-`);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = root;
    try {
      const emu = await useEmulator({ config: withKeys() });
      const form = new FormData();
      form.append('image', new Blob([makePng({ width: 64, height: 64 })]), 'a.png');
      form.append('model', 'RealESRGAN_x4');
      expect((await call(emu, 'POST', '/api/v2/images/upscales', { key: API_KEY, body: form })).status).toBe(200);
      const [dir] = await readdir(root);
      expect(dir).toMatch(/^deflow-emulator-/);
      expect(await readdir(`${root}/${dir}`)).toEqual([]);
      await emu.close();
      expect(await readdir(root)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await rm(root, { recursive: true, force: true });
    }
  });
});
