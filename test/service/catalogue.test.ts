import { describe, expect, it } from 'vitest';
import { ENDPOINTS, matchEndpoint, SUBMISSION_POOLS } from '../../src/service/endpoints.js';
import { ERROR_CODES } from '../../src/service/error-codes.js';
import { MODEL_CATALOGUE } from '../../src/service/model-catalogue.js';
import { parseRateLimitPolicy } from '../../src/service/rate-limit-headers.js';
import { TASK_IDS, TASKS } from '../../src/service/tasks.js';

// Literal values from spec/service-interface.md and the issue, never derived from the catalogue.
const V2_INDEX = [
  '/api/v2/images/generations',
  '/api/v2/images/edits',
  '/api/v2/images/ocr',
  '/api/v2/images/background-removals',
  '/api/v2/images/upscales',
  '/api/v2/videos/generations',
  '/api/v2/videos/animations',
  '/api/v2/videos/audio-syncs',
  '/api/v2/videos/replacements',
  '/api/v2/videos/upscales',
  '/api/v2/audio/speech',
  '/api/v2/audio/music',
  '/api/v2/audio/transcriptions',
  '/api/v2/embeddings',
  '/api/v2/prompts/enhancements',
  '/api/v2/videos/descriptions',
  '/api/v2/videos/background-removals',
];
const V1_INDEX = [
  'txt2img', 'txt2video', 'img2video', 'aud2video', 'txt2audio', 'txt2embedding', 'txt2music', 'img2txt',
  'vid2txt', 'aud2txt', 'videofile2txt', 'audiofile2txt', 'transcribe', 'img2img', 'img-rmbg', 'img-upscale',
  'vid-upscale', 'videos/replace', 'prompt/speech',
];

describe('service catalogue', () => {
  it('has the 17 task ids of the workflow language', () => {
    expect([...TASK_IDS].sort()).toEqual(
      [
        'image.generate', 'image.edit', 'image.ocr', 'image.remove-background', 'image.upscale', 'video.generate',
        'video.animate', 'video.audio-sync', 'video.replace', 'video.upscale', 'video.describe',
        'video.remove-background', 'audio.speech', 'audio.music', 'audio.transcribe', 'text.embed', 'prompt.enhance',
      ].sort(),
    );
  });

  it('serves every POST of the v2 index with a /price twin', () => {
    for (const path of V2_INDEX) {
      expect(matchEndpoint('POST', path)?.endpoint.kind, path).toBe('submit');
      expect(matchEndpoint('POST', `${path}/price`)?.endpoint.kind, `${path}/price`).toBe('price');
    }
  });

  it('serves every POST of the v1 index with its price twin, videos/replace/price being the exception', () => {
    for (const name of V1_INDEX) {
      expect(matchEndpoint('POST', `/api/v1/client/${name}`)?.endpoint.kind, name).toBe('submit');
      const twin = name === 'videos/replace' ? `/api/v1/client/${name}/price` : `/api/v1/client/${name}/price-calculation`;
      expect(matchEndpoint('POST', twin)?.endpoint.kind, twin).toBe('price');
    }
    expect(matchEndpoint('POST', '/api/v1/client/videos/replace/price-calculation')).toBeUndefined();
  });

  it('shares one pool between a v2 submission and its v1 twins, and one quote pool for every price endpoint', () => {
    expect(matchEndpoint('POST', '/api/v1/client/txt2img')?.endpoint.pool).toBe(
      matchEndpoint('POST', '/api/v2/images/generations')?.endpoint.pool,
    );
    for (const v1 of ['transcribe', 'audiofile2txt', 'videofile2txt', 'vid2txt', 'aud2txt']) {
      expect(matchEndpoint('POST', `/api/v1/client/${v1}`)?.endpoint.pool).toBe('audio/transcriptions');
    }
    const pricePools = new Set(ENDPOINTS.filter((e) => e.kind === 'price').map((e) => e.pool));
    expect([...pricePools]).toEqual(['quote']);
    expect(matchEndpoint('POST', '/api/v2/prompts/enhancements')?.endpoint.pool).toBe('enhancement');
    expect(new Set(SUBMISSION_POOLS).size).toBe(16);
  });

  it('routes job status in both versions and the account endpoints with their roles', () => {
    expect(matchEndpoint('GET', '/api/v2/jobs/abc')).toMatchObject({ requestId: 'abc', endpoint: { kind: 'job-status' } });
    expect(matchEndpoint('GET', '/api/v1/client/request-status/abc')).toMatchObject({ requestId: 'abc' });
    expect(matchEndpoint('GET', '/api/v2/account/payments')?.endpoint.role).toBe('admin');
    expect(matchEndpoint('POST', '/api/v2/keys')?.endpoint.role).toBe('admin');
    expect(matchEndpoint('GET', '/api/v2/key')?.endpoint.role).toBe('any');
    expect(matchEndpoint('GET', '/api/v2/account/balance')?.endpoint.pool).toBeNull();
    expect(matchEndpoint('GET', '/api/v2/models')?.endpoint.pool).toBeNull();
  });

  it('declares exactly-one-of pairs and the price twin third source', () => {
    const transcribe = TASKS.find((t) => t.path === '/api/v2/audio/transcriptions');
    expect(transcribe?.exactlyOneOf).toEqual([['source_url', 'source_file']]);
    expect(transcribe?.priceExactlyOneOf).toEqual([['source_url', 'source_file', 'duration_seconds']]);
    const describe = TASKS.find((t) => t.path === '/api/v2/videos/descriptions');
    expect(describe?.exactlyOneOf).toEqual([['video_url', 'video_file']]);
    expect(describe?.inferenceTypes).toEqual(['video2desc', 'video_file2desc']);
  });

  it('lists the published error codes with their statuses', () => {
    expect(ERROR_CODES).toEqual({
      missing_key: 401, invalid_key: 401, key_expired: 401, key_revoked: 401, insufficient_permissions: 403,
      ip_not_allowed: 403, active_key_limit_reached: 422, insufficient_balance: 422, key_limit_exceeded: 402,
      rate_limited: 429,
    });
  });

  it('parses X-RateLimit-Policy with and without spaces', () => {
    expect(parseRateLimitPolicy('60;w=60, 1000;w=86400')).toEqual([
      { limit: 60, windowSeconds: 60 },
      { limit: 1000, windowSeconds: 86400 },
    ]);
    expect(parseRateLimitPolicy('3;w=60,100;w=86400')).toHaveLength(2);
    expect(parseRateLimitPolicy('garbage')).toEqual([]);
  });

  it('carries the model slugs the public docs name, each serving at least one task', () => {
    const slugs = MODEL_CATALOGUE.map((m) => m.slug);
    for (const slug of ['Flux1schnell', 'ZImageTurbo_INT8', 'Kokoro', 'Chatterbox', 'WhisperLargeV3', 'WhisperLargeV3Ct2',
      'AceStep_1_5_Turbo', 'AceStep_1_5_Base', 'Bge_M3_FP16', 'Marlin_2B', 'Nanonets_Ocr_S_F16', 'Ben2', 'RealESRGAN_x4']) {
      expect(slugs).toContain(slug);
    }
    const served = new Set(TASKS.flatMap((t) => t.inferenceTypes));
    for (const m of MODEL_CATALOGUE) expect(m.inference_types.some((t) => served.has(t)), m.slug).toBe(true);
  });
});
