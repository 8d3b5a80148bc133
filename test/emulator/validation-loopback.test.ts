import { describe, expect, it } from 'vitest';
import { makeMp3, makePng } from '../../src/emulator/media/index.js';
import { API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { multipartForm as form } from './multipart-form.js';

const envelope = (message: string, errors: Record<string, string[]>) => ({ message, errors, statusCode: 422, data: {} });

describe('422 answers over HTTP', () => {
  it('lists every failing field and summarises the first message', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/images/generations', {
      key: API_KEY,
      json: { prompt: 'fox', model: 'Flux1schnell', width: 100, height: 4096, steps: 'many' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      envelope('The width field must be at least 256. (and 2 more errors)', {
        width: ['The width field must be at least 256.'],
        height: ['The height field must not be greater than 2048.'],
        steps: ['The steps field must be an integer.'],
      }),
    );
  });

  it('an unknown model is 422 on errors.model', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/images/generations/price', { key: API_KEY, json: { prompt: 'fox', model: 'Nope', width: 512, height: 512, steps: 4 } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(envelope('The selected model does not exist.', { model: ['The selected model does not exist.'] }));
  });

  it('a model that does not serve the task is 422', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v1/client/txt2img', { key: API_KEY, json: { prompt: 'fox', model: 'WhisperLargeV3', width: 512, height: 512, steps: 4 } });
    expect(res.body).toEqual(envelope('The selected model does not support Text To Image.', { model: ['The selected model does not support Text To Image.'] }));
  });

  it('transcription with neither source, as a multipart form', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/audio/transcriptions', { key: API_KEY, body: form({ model: 'WhisperLargeV3', include_ts: 'false' }) });
    expect(res.body).toEqual(
      envelope('The source url field is required when source file is not present. (and 1 more error)', {
        source_url: ['The source url field is required when source file is not present.'],
        source_file: ['The source file field is required when source url is not present.'],
      }),
    );
  });

  it('transcription with both sources', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const body = form({ model: 'WhisperLargeV3', include_ts: 'false', source_url: 'https://youtu.be/abc' }, { source_file: ['a.mp3', makeMp3(3), 'audio/mpeg'] });
    const res = await call(emu, 'POST', '/api/v2/audio/transcriptions', { key: API_KEY, body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      source_url: ['The source url field prohibits source file from being present.'],
      source_file: ['The source file field prohibits source url from being present.'],
    });
  });

  it('a PNG named .mp3 and declared audio/mpeg is refused by content', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const body = form({ model: 'WhisperLargeV3', include_ts: '0' }, { audio: ['song.mp3', makePng({ width: 4, height: 4 }), 'audio/mpeg'] });
    const res = await call(emu, 'POST', '/api/v1/client/audiofile2txt', { key: API_KEY, body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ audio: ['The audio field must be a file of type: aac, mp3, ogg, webm.'] });
  });

  it('an image over 10 MB is refused', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const big = Buffer.concat([makePng({ width: 4, height: 4 }), Buffer.alloc(10 * 1024 * 1024 + 1)]);
    const res = await call(emu, 'POST', '/api/v2/images/ocr', { key: API_KEY, body: form({ model: 'Nanonets_Ocr_S_F16' }, { image: ['a.png', big, 'image/png'] }) });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ image: ['The image field must not be greater than 10240 kilobytes.'] });
  });

  it('music outside the model limits is refused on both versions alike', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const v2 = await call(emu, 'POST', '/api/v2/audio/music/price', { key: API_KEY, json: { model: 'AceStep_1_5_Base', duration: 20, inference_steps: 101 } });
    const v1 = await call(emu, 'POST', '/api/v1/client/txt2music/price-calculation', { key: API_KEY, json: { model: 'AceStep_1_5_Base', duration: 20, inference_steps: 101 } });
    expect(v2.body).toEqual(
      envelope('The duration field must be at least 30. (and 1 more error)', {
        duration: ['The duration field must be at least 30.'],
        inference_steps: ['The inference steps field must not be greater than 100.'],
      }),
    );
    expect(v1.body).toEqual(v2.body);
  });

  it('an https-only webhook_url is enforced when allow_http is off', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/images/generations', {
      key: API_KEY,
      json: { prompt: 'fox', model: 'Flux1schnell', width: 512, height: 512, steps: 4, webhook_url: 'http://127.0.0.1/hook' },
    });
    expect(res.body.errors).toEqual({ webhook_url: ['The webhook url field must start with one of the following: https://.'] });
  });
});
