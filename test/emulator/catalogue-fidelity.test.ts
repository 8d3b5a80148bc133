import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import { parseBuffer } from 'music-metadata';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { makeFlac } from '../../src/emulator/media/index.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { startEmulator } from '../../src/emulator/start-emulator.js';
import { API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { multipartForm } from './multipart-form.js';

const FAST = withKeys({ time_scale: 1000, jobs: { duration_ms: 2000 } });
const MEDIA = join(import.meta.dirname, '..', '..', 'workflows', 'media');
// Self-signed for 127.0.0.1 and localhost, valid until 2126; made with openssl req -x509 for these tests only.
const TLS_DIR = join(import.meta.dirname, '..', 'fixtures', 'tls');

async function finish(emu: RunningEmulator, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const data = (await call(emu, 'GET', `/api/v2/jobs/${id}`, { key: API_KEY })).body.data as Record<string, unknown>;
    if (data['status'] === 'done' || data['status'] === 'error') return data;
    await emu.clock.sleep(200);
  }
}

describe('Qwen3 TTS Base and VoiceDesign (service-facts.md §4)', () => {
  it('lists both with text 10–5000 and speed 1, serving txt2audio', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const models = (await call(emu, 'GET', '/api/v2/models?limit=100', { key: API_KEY })).body.data.data as { slug: string; inference_types: string[]; info: { limits: object } }[];
    for (const slug of ['Qwen3_TTS_12Hz_1_7B_Base', 'Qwen3_TTS_12Hz_1_7B_VoiceDesign']) {
      const model = models.find((m) => m.slug === slug);
      expect(model?.inference_types).toEqual(['txt2audio']);
      expect(model?.info.limits).toMatchObject({ min_text: 10, max_text: 5000, min_speed: 1, max_speed: 1 });
    }
  });

  it('clones a voice from ref_audio (as n8n sends it) and designs one from instruct', async () => {
    const emu = await useEmulator({ config: FAST });
    const mp3 = await readFile(join(MEDIA, 'clips', 'hello.mp3'));
    const clone = await call(emu, 'POST', '/api/v1/client/txt2audio', {
      key: API_KEY,
      body: multipartForm(
        { text: 'A cloned voice reads this.', model: 'Qwen3_TTS_12Hz_1_7B_Base', mode: 'voice_clone', lang: 'English', speed: '1', format: 'mp3', sample_rate: '24000', ref_text: '' },
        { ref_audio: ['voice.mp3', mp3, 'audio/mpeg'] },
      ),
    });
    expect(clone.status).toBe(200);
    const design = { text: 'A designed voice reads this.', model: 'Qwen3_TTS_12Hz_1_7B_VoiceDesign', mode: 'voice_design', lang: 'English', speed: 1, format: 'mp3', sample_rate: 24000 };
    expect((await call(emu, 'POST', '/api/v2/audio/speech', { key: API_KEY, json: { ...design, instruct: 'a calm, low voice' } })).status).toBe(200);
    const noInstruct = await call(emu, 'POST', '/api/v2/audio/speech', { key: API_KEY, json: design });
    expect(noInstruct.body.errors).toEqual({ instruct: ['The instruct field is required when mode is voice_design.'] });
    const short = await call(emu, 'POST', '/api/v2/audio/speech', { key: API_KEY, json: { ...design, text: 'Too short', instruct: 'calm' } });
    expect(short.body.errors).toEqual({ text: ['The text field must be at least 10 characters.'] });
  });
});

describe('music in mp3, wav and flac', () => {
  it.each([
    ['mp3', 'audio/mpeg', 'mp3'],
    ['wav', 'audio/wav', 'wav'],
    ['flac', 'audio/flac', 'flac'],
  ])('%s: the result is a real %s file of the requested length', async (format, contentType, ext) => {
    const emu = await useEmulator({ config: FAST });
    const body = { caption: 'calm piano', model: 'AceStep_1_5_Turbo', duration: 12, inference_steps: 8, guidance_scale: 1, seed: 1, format };
    const submit = await call(emu, 'POST', '/api/v1/client/txt2music', { key: API_KEY, json: body });
    expect(submit.status).toBe(200);
    const data = await finish(emu, submit.body.data.request_id);
    const url = String(data['result_url']);
    expect(new URL(url).pathname).toMatch(new RegExp(`\\.${ext}$`));
    const res = await request(url);
    expect(res.headers['content-type']).toBe(contentType);
    const bytes = Buffer.from(await res.body.arrayBuffer());
    expect((await fileTypeFromBuffer(bytes))?.ext).toBe(ext);
    expect((await parseBuffer(bytes, { mimeType: contentType })).format.duration).toBeCloseTo(12, 1);
  });

  it('refuses a format music does not produce', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/audio/music', { key: API_KEY, json: { caption: 'x', model: 'AceStep_1_5_Turbo', duration: 12, inference_steps: 8, format: 'ogg' } });
    expect(res.body.errors).toEqual({ format: ['The selected format is invalid.'] });
  });

  it('a silent FLAC carries 16-bit mono STREAMINFO and the exact sample count', async () => {
    const meta = await parseBuffer(makeFlac(2.5, 16_000), { mimeType: 'audio/flac' });
    expect(meta.format).toMatchObject({ container: 'FLAC', sampleRate: 16_000, bitsPerSample: 16, numberOfChannels: 1, duration: 2.5 });
  });
});

describe('retired v1 prompt boosters (public docs: 410 Gone)', () => {
  it.each([
    ['POST', '/api/v1/client/prompt/image'],
    ['POST', '/api/v1/client/prompt/video/price-calculation'],
    ['POST', '/api/v1/client/prompt/image2image'],
    ['GET', '/api/v1/client/prompts/samples'],
  ] as const)('%s %s answers 410 in the error envelope with Deprecation and Link', async (method, path) => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, method, path, { key: API_KEY, ...(method === 'POST' ? { json: { prompt: 'a fox' } } : {}) });
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ message: expect.stringContaining('/api/v2/prompts/enhancements'), errors: [], statusCode: 410, data: {} });
    expect(res.headers['deprecation']).toBe('true');
    expect(res.headers['link']).toBe('</api/v2/prompts/enhancements>; rel="successor-version"');
  });

  it('leaves prompt/speech, which the spec lists, working', async () => {
    const emu = await useEmulator({ config: withKeys() });
    expect((await call(emu, 'POST', '/api/v1/client/prompt/speech', { key: API_KEY, json: { prompt: 'hi there', lang_code: 'en' } })).status).toBe(200);
  });
});

describe('HTTPS (--tls-cert / --tls-key)', () => {
  it('serves the API and result URLs over https with the given certificate', async () => {
    const cert = await readFile(join(TLS_DIR, 'cert.pem'));
    const emu = await startEmulator({ ...{ config: FAST }, tls: { cert, key: await readFile(join(TLS_DIR, 'key.pem')) } });
    const dispatcher = new Agent({ connect: { ca: cert } });
    try {
      expect(emu.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const res = await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY, dispatcher });
      expect(res.body).toEqual({ balance: 100 });
      const json = { input: 'hello', model: 'Bge_M3_FP16' };
      const submit = await call(emu, 'POST', '/api/v2/embeddings', { key: API_KEY, json, dispatcher });
      let data: Record<string, unknown> = {};
      while (data['status'] !== 'done') {
        await emu.clock.sleep(200);
        data = (await call(emu, 'GET', `/api/v2/jobs/${submit.body.data.request_id}`, { key: API_KEY, dispatcher })).body.data;
      }
      expect(String(data['result_url'])).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/results\//);
      const download = await request(String(data['result_url']), { dispatcher });
      await download.body.dump();
      expect(download.statusCode).toBe(200);
    } finally {
      await dispatcher.close();
      await emu.close();
    }
  });

  it('refuses an unusable certificate as a usage error', async () => {
    await expect(startEmulator({ config: FAST, tls: { cert: 'not a cert', key: 'not a key' } })).rejects.toMatchObject({ code: 'E_USAGE_TLS' });
  });
});
