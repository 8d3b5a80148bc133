import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { parseBuffer } from 'music-metadata';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { multipartForm } from './multipart-form.js';

const FAST = { time_scale: 1000, jobs: { duration_ms: 2000, queue_share: 0.1 } };

async function balance(emu: RunningEmulator): Promise<number> {
  return (await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY })).body.balance as number;
}

async function finish(emu: RunningEmulator, id: string, path = '/api/v2/jobs/'): Promise<Record<string, unknown>> {
  for (;;) {
    const res = await call(emu, 'GET', `${path}${id}`, { key: API_KEY });
    expect(res.status).toBe(200);
    const data = res.body.data as Record<string, unknown>;
    if (data['status'] === 'done' || data['status'] === 'error') return data;
    await emu.clock.sleep(200);
  }
}

async function download(url: string): Promise<{ status: number; type: string | undefined; body: Buffer }> {
  const res = await request(url);
  const body = Buffer.from(await res.body.arrayBuffer());
  const type = res.headers['content-type'];
  return { status: res.statusCode, type: Array.isArray(type) ? type[0] : type, body };
}

const generation = { prompt: 'a red fox', model: 'Flux1schnell', width: 768, height: 512, steps: 4 };

describe('jobs over HTTP', () => {
  it('charges exactly the quoted price when the job is done', async () => {
    const emu = await useEmulator({ config: withKeys({ ...FAST, balance: 10 }) });
    const quote = await call(emu, 'POST', '/api/v2/images/generations/price', { key: API_KEY, json: generation });
    expect(quote.body).toEqual({ data: { price: 0.00204 } });
    const before = await balance(emu);
    const submit = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: generation });
    expect(submit.status).toBe(200);
    expect(Object.keys(submit.body)).toEqual(['data']);
    expect(submit.body.data).toEqual({ request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const data = await finish(emu, submit.body.data.request_id);
    expect(data).toMatchObject({ status: 'done', progress: 100, preview: null, result: null, price: { amount: 0.00204, is_estimated: false } });
    expect(Math.round((before - (await balance(emu))) * 1e6)).toBe(2040);
  });

  it('does not charge a failed job', async () => {
    const emu = await useEmulator({ config: withKeys({ ...FAST, balance: 10, jobs: { duration_ms: 2000, fail_rate: 1 } }) });
    const before = await balance(emu);
    const submit = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: generation });
    const data = await finish(emu, submit.body.data.request_id);
    expect(data).toMatchObject({
      status: 'error', result_url: null, error_code: 'WORKER_TIMEOUT', error_message: 'Worker failed to respond within the allowed time',
      error_reason: 'TIMEOUT', retryable: true, refunded: true, price: { amount: 0, is_estimated: false },
    });
    expect(await balance(emu)).toBe(before);
  });

  it('v1 and v2 polls see the same job', async () => {
    const emu = await useEmulator({ config: withKeys(FAST) });
    const submit = await call(emu, 'POST', '/api/v1/client/txt2img', { key: API_KEY, json: generation });
    const id = submit.body.data.request_id as string;
    const v2 = await finish(emu, id, '/api/v2/jobs/');
    const v1 = await call(emu, 'GET', `/api/v1/client/request-status/${id}`, { key: API_KEY });
    expect(v1.body.data.status).toBe('done');
    expect(v1.body.data.price).toEqual(v2['price']);
  });

  it('result_url serves a PNG of the requested size without auth, and alternates', async () => {
    const emu = await useEmulator({ config: withKeys(FAST) });
    const submit = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: generation });
    const data = await finish(emu, submit.body.data.request_id);
    const url = data['result_url'] as string;
    expect(url).toMatch(new RegExp(`^${emu.url}/results/[0-9a-f-]{36}/result\\.png\\?`));
    const file = await download(url);
    expect(file.status).toBe(200);
    expect(file.type).toBe('image/png');
    expect(imageSize(file.body)).toMatchObject({ width: 768, height: 512 });
    const alt = data['results_alt_formats'] as { jpg: string; webp: string };
    expect((await fileTypeFromBuffer((await download(alt.jpg)).body))?.mime).toBe('image/jpeg');
    expect((await download(url.replace(/signature=[0-9a-f]+/, 'signature=00'))).status).toBe(404);
  });

  it('speech from a form upload yields an MP3 of about chars / 15 seconds', async () => {
    const emu = await useEmulator({ config: withKeys(FAST) });
    const text = 'word '.repeat(60).trim();
    const submit = await call(emu, 'POST', '/api/v2/audio/speech', { key: API_KEY, body: multipartForm({ text, model: 'Kokoro', lang: 'en-us', voice: 'af_sky' }) });
    expect(submit.status).toBe(200);
    const data = await finish(emu, submit.body.data.request_id);
    const file = await download(data['result_url'] as string);
    expect(file.type).toBe('audio/mpeg');
    const meta = await parseBuffer(file.body, { mimeType: 'audio/mpeg', size: file.body.length });
    expect(meta.format.duration).toBeCloseTo(text.length / 15, 0);
  });

  it('video generation yields an MP4 that parsers accept', async () => {
    const emu = await useEmulator({ config: withKeys(FAST) });
    const json = { prompt: 'waves', model: 'Ltxv_13B_0_9_8_Distilled_FP8', width: 512, height: 512, frames: 60, fps: 30 };
    const submit = await call(emu, 'POST', '/api/v2/videos/generations', { key: API_KEY, json });
    const data = await finish(emu, submit.body.data.request_id);
    const file = await download(data['result_url'] as string);
    expect(file.type).toBe('video/mp4');
    expect(await fileTypeFromBuffer(file.body)).toEqual({ ext: 'mp4', mime: 'video/mp4' });
  });
});
