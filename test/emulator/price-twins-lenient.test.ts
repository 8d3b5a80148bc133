import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePng } from '../../src/emulator/media/index.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { multipartForm } from './multipart-form.js';

// Prices are the published rates of service-facts.md §5 (README "Prices"), computed by hand here.
const MEDIA = join(import.meta.dirname, '..', '..', 'workflows', 'media');

async function quote(emu: RunningEmulator, path: string, json: unknown): Promise<{ status: number; price: unknown; errors: unknown }> {
  const res = await call(emu, 'POST', path, { key: API_KEY, json });
  return { status: res.status, price: res.body?.data?.price, errors: res.body?.errors };
}

describe('image twins quoted from width and height (no file)', () => {
  it('OCR, background removal and upscale price width × height exactly as the same-sized upload', async () => {
    const emu = await useEmulator({ config: withKeys() });
    // 0.00045 + 8.4e-9 × 1024 × 768
    expect(await quote(emu, '/api/v2/images/ocr/price', { model: 'Nanonets_Ocr_S_F16', width: 1024, height: 768 })).toMatchObject({ status: 200, price: 0.007056 });
    // 0.0003 + 4e-9 × 256²
    expect((await quote(emu, '/api/v1/client/img-rmbg/price-calculation', { model: 'Ben2', width: 256, height: 256 })).price).toBe(0.000562);
    // 0.0005 + 6e-9 × 256² × 4²
    expect((await quote(emu, '/api/v2/images/upscales/price', { model: 'RealESRGAN_x4', width: 256, height: 256 })).price).toBe(0.006791);
    const upload = await call(emu, 'POST', '/api/v2/images/ocr/price', {
      key: API_KEY,
      body: multipartForm({ model: 'Nanonets_Ocr_S_F16' }, { image: ['scan.png', makePng({ width: 1024, height: 768 }), 'image/png'] }),
    });
    expect(upload.body).toEqual({ data: { price: 0.007056 } });
  });

  it('needs the file or both sides (Laravel required_without), and a submission still needs the file', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const half = await quote(emu, '/api/v2/images/ocr/price', { model: 'Nanonets_Ocr_S_F16', width: 1024 });
    expect(half.status).toBe(422);
    expect(half.errors).toEqual({ image: ['The image field is required when width / height is not present.'] });
    const submit = await call(emu, 'POST', '/api/v2/images/ocr', { key: API_KEY, json: { model: 'Nanonets_Ocr_S_F16', width: 1024, height: 768 } });
    expect(submit.status).toBe(422);
    expect(submit.body.errors).toEqual({ image: ['The image field is required.'] });
  });

  it('an edit twin needs neither prompt nor image (the SDK quotes edits as JSON without one)', async () => {
    const emu = await useEmulator({ config: withKeys() });
    // 0.0179 × (512² / 512²) × (20 / 20): no size given and the model has no default size.
    expect(await quote(emu, '/api/v1/client/img2img/price-calculation', { model: 'QwenImageEdit_Plus_NF4', steps: 20, seed: 1 })).toMatchObject({ status: 200, price: 0.0179 });
    expect((await quote(emu, '/api/v2/images/edits/price', { model: 'QwenImageEdit_Plus_NF4', steps: 20, width: 1024, height: 512 })).price).toBe(0.0358);
  });
});

describe('twins do not require what the price does not depend on', () => {
  it('image and video generation twins need no prompt; the submission does', async () => {
    const emu = await useEmulator({ config: withKeys() });
    expect((await quote(emu, '/api/v2/images/generations/price', { model: 'Flux1schnell', width: 512, height: 512, steps: 4 })).price).toBe(0.00136);
    const video = { model: 'Ltx2_3_22B_Dist_INT8', width: 768, height: 512, frames: 97, fps: 24 };
    for (const path of ['/api/v2/videos/generations/price', '/api/v2/videos/animations/price', '/api/v2/videos/audio-syncs/price']) {
      // 0.001737 × (97/24 / 2) × (768·512 / 256²) × 1.5
      expect(await quote(emu, path, video), path).toMatchObject({ status: 200, price: 0.031592 });
    }
    const submit = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: { model: 'Flux1schnell', width: 512, height: 512, steps: 4 } });
    expect(submit.status).toBe(422);
    expect(submit.body.errors).toEqual({ prompt: ['The prompt field is required.'] });
  });

  it('the v2 transcription twin needs no include_ts; the v1 file twins keep it, as the spec lists it', async () => {
    const emu = await useEmulator({ config: withKeys() });
    expect((await quote(emu, '/api/v2/audio/transcriptions/price', { model: 'WhisperLargeV3', duration_seconds: 3600 })).price).toBe(0.05);
    const v1 = await quote(emu, '/api/v1/client/audiofile2txt/price-calculation', { model: 'WhisperLargeV3', duration_seconds: 3600 });
    expect(v1.status).toBe(422);
    expect(v1.errors).toEqual({ include_ts: ['The include ts field is required.'] });
  });

  it('prompt enhancement twins need no prompt or type; v1 prompt/speech takes no lang_code', async () => {
    const emu = await useEmulator({ config: withKeys() });
    expect((await quote(emu, '/api/v2/prompts/enhancements/price', { model_slug: 'Flux1schnell' })).price).toBe(0.0002);
    expect((await quote(emu, '/api/v1/client/prompt/speech/price-calculation', { prompt: 'hello there' })).price).toBe(0.0002);
    const speech = await call(emu, 'POST', '/api/v1/client/prompt/speech', { key: API_KEY, json: { prompt: 'hello there' } });
    expect(speech.status).toBe(200);
    expect(speech.body).toEqual({ prompt: 'Hello there.' });
  });
});

describe('audio and video twins quoted from a length (no file)', () => {
  it('v1 audiofile2txt, videofile2txt and aud2txt twins take duration_seconds', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const base = { model: 'WhisperLargeV3', include_ts: true };
    // 0.05 per hour of WhisperLargeV3
    expect((await quote(emu, '/api/v1/client/audiofile2txt/price-calculation', { ...base, duration_seconds: 3600 })).price).toBe(0.05);
    expect((await quote(emu, '/api/v1/client/videofile2txt/price-calculation', { ...base, duration_seconds: 1800 })).price).toBe(0.025);
    expect((await quote(emu, '/api/v1/client/aud2txt/price-calculation', { ...base, duration_seconds: 600 })).price).toBe(0.008333);
    const neither = await quote(emu, '/api/v1/client/audiofile2txt/price-calculation', base);
    expect(neither.errors).toEqual({
      audio: ['The audio field is required when duration seconds is not present.'],
      duration_seconds: ['The duration seconds field is required when audio is not present.'],
    });
  });

  it('a file twin prices its upload as before, and a submission still needs the file', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const mp3 = await readFile(join(MEDIA, 'clips', 'hello.mp3'));
    const upload = await call(emu, 'POST', '/api/v1/client/audiofile2txt/price-calculation', {
      key: API_KEY,
      body: multipartForm({ model: 'WhisperLargeV3', include_ts: 'true' }, { audio: ['hello.mp3', mp3, 'audio/mpeg'] }),
    });
    expect(upload.status).toBe(200);
    expect(upload.body.data.price).toBeGreaterThan(0);
    const submit = await call(emu, 'POST', '/api/v1/client/audiofile2txt', { key: API_KEY, json: { model: 'WhisperLargeV3', include_ts: true, duration_seconds: 60 } });
    expect(submit.status).toBe(422);
    expect(submit.body.errors).toEqual({ audio: ['The audio field is required.'] });
  });

  it('video replacement and background removal twins take duration; background removal without it is 0', async () => {
    const emu = await useEmulator({ config: withKeys() });
    // 0.006 per second; no reference image needed
    expect((await quote(emu, '/api/v1/client/videos/replace/price', { model: 'Wan2_2_Animate_14B_INT8', duration: 10 })).price).toBe(0.06);
    // 0.0015 per second
    expect((await quote(emu, '/api/v2/videos/background-removals/price', { model: 'RMBG-1.4', duration: 10 })).price).toBe(0.015);
    expect(await quote(emu, '/api/v1/client/vid-rmbg/price-calculation', { model: 'RMBG-1.4', width: 640, height: 360 })).toMatchObject({ status: 200, price: 0 });
    const replace = await quote(emu, '/api/v2/videos/replacements/price', { model: 'Wan2_2_Animate_14B_INT8' });
    expect(replace.status).toBe(422);
    expect(Object.keys(replace.errors as object).sort()).toEqual(['duration', 'video']);
  });
});
