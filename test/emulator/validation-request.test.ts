import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3, makeMp4, makePng, makeWav } from '../../src/emulator/media/index.js';
import { validateRequest } from '../../src/emulator/requests/validate-request.js';
import { formBody, jsonBody, models, post } from './validation-helpers.js';

const strict = { allowHttpWebhooks: false };
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-validate-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const generation = { prompt: 'a red fox', model: 'Flux1schnell', width: 512, height: 512, steps: 4 };

describe('field rules', () => {
  it('fills guidance and seed a client left out, from the model and field defaults', async () => {
    const result = await validateRequest(post('/api/v2/images/generations'), jsonBody(generation), models, strict);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.request.values).toMatchObject({ guidance: 0, seed: -1, steps: 4, width: 512 });
  });

  it('fills width and height from the model when left out', async () => {
    const { width: _w, height: _h, ...rest } = generation;
    const result = await validateRequest(post('/api/v2/images/generations'), jsonBody(rest), models, strict);
    expect(result.ok && result.request.values).toMatchObject({ width: 1024, height: 1024 });
  });

  it('coerces form strings to numbers and booleans', async () => {
    const body = await formBody(dir, { ...stringify(generation), enhance_prompt: 'on' });
    const result = await validateRequest(post('/api/v2/images/generations'), body, models, strict);
    expect(result.ok && result.request.values).toMatchObject({ width: 512, steps: 4, enhance_prompt: true });
  });

  it('reports several fields at once, and model limits', async () => {
    const body = jsonBody({ ...generation, width: 100, height: 'tall', steps: 11 });
    const result = await validateRequest(post('/api/v2/images/generations'), body, models, strict);
    expect(result).toEqual({
      ok: false,
      errors: {
        width: ['The width field must be at least 256.'],
        height: ['The height field must be an integer.'],
        steps: ['The steps field must not be greater than 10.'],
      },
    });
  });

  it('reports a missing prompt as required', async () => {
    const { prompt: _p, ...rest } = generation;
    const result = await validateRequest(post('/api/v2/images/generations'), jsonBody(rest), models, strict);
    expect(result.ok ? null : result.errors).toEqual({ prompt: ['The prompt field is required.'] });
  });

  it('reports an unknown model', async () => {
    const result = await validateRequest(post('/api/v2/images/generations'), jsonBody({ ...generation, model: 'NoSuchModel' }), models, strict);
    expect(result.ok ? null : result.errors).toEqual({ model: ['The selected model does not exist.'] });
  });

  it('reports a model that does not serve the task', async () => {
    const result = await validateRequest(post('/api/v2/images/generations'), jsonBody({ ...generation, model: 'Kokoro' }), models, strict);
    expect(result.ok ? null : result.errors).toEqual({ model: ['The selected model does not support Text To Image.'] });
  });

  it('checks text length against the model (Kokoro min_text 3)', async () => {
    const body = jsonBody({ text: 'hi', model: 'Kokoro', lang: 'en-us', speed: 1, format: 'mp3', sample_rate: 24000, voice: 'af_sky' });
    const result = await validateRequest(post('/api/v2/audio/speech'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ text: ['The text field must be at least 3 characters.'] });
  });

  it('refuses a time signature that is not an integer (\'4/4\') by its type, before its list', async () => {
    const body = jsonBody({ caption: 'jazz', model: 'AceStep_1_5_Turbo', duration: 30, inference_steps: 8, timesignature: '4/4' });
    const result = await validateRequest(post('/api/v2/audio/music'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ timesignature: ['The timesignature field must be an integer.'] });
  });

  it('refuses an integer time signature outside the list 2, 3, 4, 6', async () => {
    const body = jsonBody({ caption: 'jazz', model: 'AceStep_1_5_Turbo', duration: 30, inference_steps: 8, timesignature: 5 });
    const result = await validateRequest(post('/api/v2/audio/music'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ timesignature: ['The selected timesignature is invalid.'] });
    const listed = jsonBody({ caption: 'jazz', model: 'AceStep_1_5_Turbo', duration: 30, inference_steps: 8, timesignature: 6 });
    expect((await validateRequest(post('/api/v2/audio/music'), listed, models, strict)).ok).toBe(true);
  });

  it('refuses music steps the turbo model pins', async () => {
    const body = jsonBody({ model: 'AceStep_1_5_Turbo', duration: 30, inference_steps: 20 });
    const result = await validateRequest(post('/api/v1/client/txt2music/price-calculation'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ inference_steps: ['The inference steps field must not be greater than 8.'] });
  });
});

describe('webhook fields', () => {
  it('refuses an http webhook URL unless http is allowed', async () => {
    const body = jsonBody({ ...generation, webhook_url: 'http://127.0.0.1:9/hook' });
    const refused = await validateRequest(post('/api/v2/images/generations'), body, models, strict);
    expect(refused.ok ? null : refused.errors).toEqual({
      webhook_url: ['The webhook url field must start with one of the following: https://.'],
    });
    const allowed = await validateRequest(post('/api/v2/images/generations'), body, models, { allowHttpWebhooks: true });
    expect(allowed.ok).toBe(true);
  });

  it('refuses a webhook URL over 2048 characters and a secret without a URL', async () => {
    const long = `https://example.com/${'a'.repeat(2048)}`;
    const r1 = await validateRequest(post('/api/v2/images/generations'), jsonBody({ ...generation, webhook_url: long }), models, strict);
    expect(r1.ok ? null : r1.errors).toEqual({ webhook_url: ['The webhook url field must not be greater than 2048 characters.'] });
    const r2 = await validateRequest(post('/api/v2/images/generations'), jsonBody({ ...generation, webhook_secret: 's'.repeat(40) }), models, strict);
    expect(r2.ok ? null : r2.errors).toEqual({ webhook_url: ['The webhook url field is required when webhook secret is present.'] });
  });

  it('refuses a webhook secret shorter than 32 characters', async () => {
    const body = jsonBody({ ...generation, webhook_url: 'https://example.com/h', webhook_secret: 'short' });
    const result = await validateRequest(post('/api/v2/images/generations'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ webhook_secret: ['The webhook secret field must be at least 32 characters.'] });
  });
});

describe('transcription sources', () => {
  const base = { model: 'WhisperLargeV3', include_ts: 'false' };

  it('needs exactly one source: neither', async () => {
    const result = await validateRequest(post('/api/v2/audio/transcriptions'), await formBody(dir, base), models, strict);
    expect(result.ok ? null : result.errors).toEqual({
      source_url: ['The source url field is required when source file is not present.'],
      source_file: ['The source file field is required when source url is not present.'],
    });
  });

  it('needs exactly one source: both', async () => {
    const body = await formBody(dir, { ...base, source_url: 'https://youtu.be/abc' }, { source_file: [['a.mp3', makeMp3(5)]] });
    const result = await validateRequest(post('/api/v2/audio/transcriptions'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({
      source_url: ['The source url field prohibits source file from being present.'],
      source_file: ['The source file field prohibits source url from being present.'],
    });
  });

  it('requires include_ts', async () => {
    const body = await formBody(dir, { model: 'WhisperLargeV3', source_url: 'https://youtu.be/abc' });
    const result = await validateRequest(post('/api/v2/audio/transcriptions'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ include_ts: ['The include ts field is required.'] });
  });

  it('refuses a URL from an unsupported platform', async () => {
    const body = await formBody(dir, { ...base, source_url: 'https://vimeo.com/123' });
    const result = await validateRequest(post('/api/v2/audio/transcriptions'), body, models, strict);
    expect(result.ok ? null : Object.keys(result.errors)).toEqual(['source_url']);
  });

  it('refuses TikTok for a model other than WhisperLargeV3Ct2', async () => {
    const body = await formBody(dir, { ...base, source_url: 'https://www.tiktok.com/@a/video/1' });
    const result = await validateRequest(post('/api/v2/audio/transcriptions'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ source_url: ['The selected model does not support TikTok sources.'] });
    const ct2 = await formBody(dir, { ...base, model: 'WhisperLargeV3Ct2', source_url: 'https://www.tiktok.com/@a/video/1' });
    expect((await validateRequest(post('/api/v2/audio/transcriptions'), ct2, models, strict)).ok).toBe(true);
  });

  it('refuses diarize and word timestamps on WhisperLargeV3', async () => {
    const body = await formBody(dir, { model: 'WhisperLargeV3', include_ts: '1', source_url: 'https://youtu.be/x', diarize: 'true', ts_level: 'word' });
    const result = await validateRequest(post('/api/v2/audio/transcriptions'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({
      ts_level: ['The selected ts level is invalid.'],
      diarize: ['The selected model does not support diarization.'],
    });
  });

  it('sniffs content: a PNG named .mp3 is refused', async () => {
    const body = await formBody(dir, base, { source_file: [['song.mp3', makePng({ width: 8, height: 8 })]] });
    const result = await validateRequest(post('/api/v2/audio/transcriptions'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({
      source_file: ['The source file field must be a file of type: aac, mp3, mpeg, ogg, wav, webm, flac, m4a, mp4, mov, quicktime, avi, wmv, mkv.'],
    });
  });

  it('accepts a WAV named .bin and reads its duration', async () => {
    const body = await formBody(dir, base, { source_file: [['image.bin', makeWav(7, 8000)]] });
    const result = await validateRequest(post('/api/v2/audio/transcriptions'), body, models, strict);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.request.files['source_file']?.[0]?.media).toMatchObject({ family: 'audio', ext: 'wav', durationSeconds: 7 });
  });

  it('v1 videofile2txt needs an audio stream', async () => {
    const body = await formBody(dir, base, { video: [['v.mp4', makeMp4({ seconds: 2, width: 64, height: 64 })]] });
    const result = await validateRequest(post('/api/v1/client/videofile2txt'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ video: ['The video field must contain an audio stream.'] });
    const ok = await formBody(dir, base, { video: [['v.mp4', makeMp4({ seconds: 2, width: 64, height: 64, audio: true })]] });
    expect((await validateRequest(post('/api/v1/client/videofile2txt'), ok, models, strict)).ok).toBe(true);
  });
});

describe('images and video files', () => {
  it('caps image size at 10 MB', async () => {
    const big = Buffer.concat([makePng({ width: 8, height: 8 }), Buffer.alloc(10 * 1024 * 1024)]);
    const body = await formBody(dir, { model: 'Nanonets_Ocr_S_F16' }, { image: [['a.png', big]] });
    const result = await validateRequest(post('/api/v2/images/ocr'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ image: ['The image field must not be greater than 10240 kilobytes.'] });
  });

  it('counts edit images against max_input_images', async () => {
    const png = makePng({ width: 16, height: 16 });
    const body = await formBody(dir, { model: 'QwenImageEdit_Plus_NF4', prompt: 'make it blue' }, { images: [['a.png', png], ['b.png', png]] });
    const result = await validateRequest(post('/api/v2/images/edits'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ images: ['The images field must not have more than 1 items.'] });
  });

  it('reads a video-only MP4 duration and rejects scale on a fixed-scale model', async () => {
    const video: [string, Buffer][] = [['v.mp4', makeMp4({ seconds: 8, width: 64, height: 64 })]];
    const body = await formBody(dir, { model: 'RealESRGAN_Vid_x2', scale: '3' }, { video });
    const result = await validateRequest(post('/api/v2/videos/upscales'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ scale: ['The scale field is prohibited.'] });
    const ok = await validateRequest(post('/api/v2/videos/upscales'), await formBody(dir, { model: 'RealESRGAN_Vid_x2' }, { video }), models, strict);
    expect(ok.ok && ok.request.files['video']?.[0]?.media.durationSeconds).toBeCloseTo(8, 3);
  });

  it('video description refuses a source longer than max_video_duration_seconds', async () => {
    const body = await formBody(dir, { model: 'Marlin_2B', video_url: 'https://youtu.be/x?deflow_duration=7201' });
    const result = await validateRequest(post('/api/v2/videos/descriptions'), body, models, strict);
    expect(result.ok ? null : result.errors).toEqual({ video_url: ['The video url field must not be longer than 7200 seconds.'] });
  });

  it('the video-upscale quote accepts neither a video nor a duration', async () => {
    const result = await validateRequest(post('/api/v2/videos/upscales/price'), jsonBody({ model: 'RealESRGAN_Vid_x4' }), models, strict);
    expect(result.ok).toBe(true);
  });
});

function stringify(values: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
}
