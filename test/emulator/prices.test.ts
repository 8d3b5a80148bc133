import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3, makeMp4, makePng } from '../../src/emulator/media/index.js';
import { priceMicros } from '../../src/emulator/account/prices.js';
import type { ParsedBody } from '../../src/emulator/types.js';
import { validateRequest } from '../../src/emulator/requests/validate-request.js';
import { formBody, jsonBody, models, post } from './validation-helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-prices-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function price(path: string, body: ParsedBody): Promise<number> {
  const result = await validateRequest(post(path), body, models, { allowHttpWebhooks: false });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return priceMicros(result.request);
}

const png = (w: number, h: number): [string, Buffer][] => [['in.png', makePng({ width: w, height: h })]];

describe('image prices', () => {
  it.each([
    [{ model: 'Flux1schnell', width: 512, height: 512, steps: 4 }, 1360],
    [{ model: 'Flux1schnell', width: 1024, height: 1024, steps: 4 }, 5440],
    [{ model: 'ZImageTurbo_INT8', width: 512, height: 512, steps: 8 }, 6800],
    [{ model: 'Flux_2_Klein_4B_BF16', width: 512, height: 1024, steps: 4 }, 3720],
  ])('generation %j costs %i micro-dollars', async (params, micros) => {
    expect(await price('/api/v2/images/generations/price', jsonBody({ prompt: 'a fox', ...params }))).toBe(micros);
  });

  it('edit: base × area / 512² × steps / 20, size from the first image', async () => {
    const body = await formBody(dir, { model: 'QwenImageEdit_Plus_NF4', prompt: 'blue', steps: '40' }, { image: png(512, 512) });
    expect(await price('/api/v2/images/edits/price', body)).toBe(35_800);
  });

  it('OCR, background removal and upscale are priced by pixels', async () => {
    expect(await price('/api/v2/images/ocr/price', await formBody(dir, { model: 'Nanonets_Ocr_S_F16' }, { image: png(512, 512) }))).toBe(2652);
    expect(await price('/api/v2/images/background-removals/price', await formBody(dir, { model: 'Ben2' }, { image: png(256, 256) }))).toBe(562);
    expect(await price('/api/v2/images/upscales/price', await formBody(dir, { model: 'RealESRGAN_x4' }, { image: png(256, 256) }))).toBe(6791);
  });
});

describe('video prices', () => {
  it('generation: 0.001737 × (seconds / 2) × (area / 256²) × model factor', async () => {
    const body = jsonBody({ prompt: 'waves', model: 'Ltx2_3_22B_Dist_INT8', width: 768, height: 512, frames: 97, fps: 24 });
    expect(await price('/api/v2/videos/generations/price', body)).toBe(31_592);
  });

  it('upscale quotes a duration, the model scale, and 0 with neither file nor duration', async () => {
    expect(await price('/api/v2/videos/upscales/price', jsonBody({ model: 'RealESRGAN_Vid_x4', duration: 10 }))).toBe(80_000);
    expect(await price('/api/v2/videos/upscales/price', jsonBody({ model: 'FlashVSR_Tiny', duration: 10, scale: 3 }))).toBe(60_000);
    expect(await price('/api/v2/videos/upscales/price', jsonBody({ model: 'RealESRGAN_Vid_x4' }))).toBe(0);
  });

  it('replacement costs 0.006 per second of the uploaded video', async () => {
    const body = await formBody(dir, { model: 'Wan2_2_Animate_14B_INT8' }, {
      video: [['v.mp4', makeMp4({ seconds: 8, width: 64, height: 64 })]],
      ref_image: png(64, 64),
    });
    expect(await price('/api/v2/videos/replacements/price', body)).toBe(48_000);
  });

  it('description: seconds × 0.36 / 3600 × preset, balanced by default', async () => {
    expect(await price('/api/v2/videos/descriptions/price', jsonBody({ model: 'Marlin_2B', duration_seconds: 600 }))).toBe(180_000);
    expect(await price('/api/v2/videos/descriptions/price', jsonBody({ model: 'Marlin_2B', duration_seconds: 600, preset: 'detail' }))).toBe(420_000);
    expect(await price('/api/v2/videos/descriptions/price', jsonBody({ model: 'Marlin_2B', duration_seconds: 600, preset: 'fast' }))).toBe(60_000);
  });
});

describe('audio and text prices', () => {
  it('speech: characters × 0.77e-6 / speed', async () => {
    const base = { model: 'Kokoro', lang: 'en-us', voice: 'af_sky', format: 'mp3', sample_rate: 24000 };
    expect(await price('/api/v2/audio/speech/price', jsonBody({ ...base, count_text: 1000, speed: 2 }))).toBe(385);
    expect(await price('/api/v2/audio/speech/price', jsonBody({ ...base, count_text: 1000, speed: 0.5 }))).toBe(1540);
    expect(await price('/api/v2/audio/speech/price', jsonBody({ ...base, text: 'x'.repeat(1000), speed: 1 }))).toBe(770);
  });

  it('music: duration × steps × model rate', async () => {
    expect(await price('/api/v2/audio/music/price', jsonBody({ model: 'AceStep_1_5_Turbo', duration: 30, inference_steps: 8 }))).toBe(4800);
    expect(await price('/api/v2/audio/music/price', jsonBody({ model: 'AceStep_1_5_Base', duration: 60, inference_steps: 30 }))).toBe(21_600);
  });

  it('transcription: hourly rate, Ct2 word surcharge, TikTok bands, metadata surcharge', async () => {
    const q = (extra: Record<string, unknown>) => jsonBody({ include_ts: false, ...extra });
    expect(await price('/api/v2/audio/transcriptions/price', q({ model: 'WhisperLargeV3', duration_seconds: 3600 }))).toBe(50_000);
    expect(
      await price('/api/v2/audio/transcriptions/price', q({ model: 'WhisperLargeV3Ct2', duration_seconds: 600, include_ts: true, ts_level: 'word' })),
    ).toBe(15_000);
    expect(await price('/api/v2/audio/transcriptions/price', q({ model: 'WhisperLargeV3Ct2', duration_seconds: 150, platform: 'tiktok' }))).toBe(30_000);
    expect(
      await price('/api/v2/audio/transcriptions/price', q({ model: 'WhisperLargeV3Ct2', duration_seconds: 700, platform: 'tiktok', include_metadata: true })),
    ).toBe(110_000);
    expect(
      await price('/api/v2/audio/transcriptions/price', q({ model: 'WhisperLargeV3', source_url: 'https://youtu.be/a?deflow_duration=300', include_metadata: true })),
    ).toBe(9167);
  });

  it('an uploaded file costs what a duration-only quote of its length costs', async () => {
    const upload = await formBody(dir, { model: 'WhisperLargeV3', include_ts: 'true' }, { source_file: [['a.mp3', makeMp3(90)]] });
    const byFile = await price('/api/v2/audio/transcriptions', upload);
    const byDuration = await price('/api/v2/audio/transcriptions/price', jsonBody({ model: 'WhisperLargeV3', include_ts: true, duration_seconds: 90 }));
    expect(byFile).toBe(1250);
    expect(byDuration).toBe(1250);
  });

  it('v1 transcription endpoints price like v2', async () => {
    const upload = await formBody(dir, { model: 'WhisperLargeV3', include_ts: '0' }, { audio: [['a.mp3', makeMp3(90)]] });
    expect(await price('/api/v1/client/audiofile2txt/price-calculation', upload)).toBe(1250);
  });

  it('embeddings: ceil(chars / 4) tokens × 0.084e-6; prompt enhancement is flat', async () => {
    expect(await price('/api/v2/embeddings/price', jsonBody({ model: 'Bge_M3_FP16', input: ['a'.repeat(4000), 'b'.repeat(3999)] }))).toBe(168);
    expect(await price('/api/v2/prompts/enhancements/price', jsonBody({ prompt: 'a fox', type: 'images.generations', model_slug: 'Flux1schnell' }))).toBe(200);
  });

  it('a submission and its price twin with the same parameters cost the same', async () => {
    const params = { prompt: 'a fox', model: 'Flux1schnell', width: 768, height: 640, steps: 6, seed: 3 };
    expect(await price('/api/v2/images/generations', jsonBody(params))).toBe(await price('/api/v1/client/txt2img/price-calculation', jsonBody(params)));
  });
});
