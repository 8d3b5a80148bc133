import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmulatorConfig } from '../../src/emulator/config/config.js';
import { API_KEY, call, rateHeaders, useEmulator, withKeys } from '../helpers/emulator-http.js';

// The public docs' published tiers, copied literally from service-facts.md §5.
const BASIC_ENDPOINTS = {
  'images/generations': { rpm: 3, rpd: 100 },
  'images/edits': { rpm: 1, rpd: 15 },
  'images/ocr': { rpm: 5, rpd: 50 },
  'images/background-removals': { rpm: 5, rpd: 100 },
  'images/upscales': { rpm: 5, rpd: 100 },
  'videos/generations': { rpm: 1, rpd: 15 },
  'videos/animations': { rpm: 1, rpd: 15 },
  'videos/audio-syncs': { rpm: 1, rpd: 15 },
  'videos/replacements': { rpm: 1, rpd: 15 },
  'videos/upscales': { rpm: 1, rpd: 15 },
  'audio/speech': { rpm: 5, rpd: 300 },
  'audio/music': { rpm: 1, rpd: 15 },
  'audio/transcriptions': { rpm: 1, rpd: 10 },
  embeddings: { rpm: 10, rpd: 500 },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-tiers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tier: basic and premium', () => {
  it('basic sets every published pool: per endpoint, price endpoints 50/200, job status 50/200, MiniMax 1/3', async () => {
    const { rate_limits: limits } = await loadEmulatorConfig({ tier: 'basic' });
    expect(limits.endpoints).toEqual(BASIC_ENDPOINTS);
    expect(limits.quote).toEqual({ rpm: 50, rpd: 200 });
    expect(limits.jobs_status).toEqual({ rpm: 50, rpd: 200 });
    expect(limits.models).toEqual({ MiniMaxH3_33B_Turbo_INT8: { rpm: 1, rpd: 3 } });
    // Endpoints the docs give no number for fall back (X-RateLimit-Source: fallback).
    expect(limits.generation).toBeNull();
  });

  it('premium is 300 per minute on every pool with no daily limit', async () => {
    const { rate_limits: limits } = await loadEmulatorConfig({ tier: 'premium' });
    for (const pool of [limits.generation, limits.quote, limits.jobs_status, limits.enhancement, limits.fallback]) {
      expect(pool).toEqual({ rpm: 300, rpd: null });
    }
    expect(limits.endpoints).toEqual({});
  });

  it('explicit rate_limits keys and entries still win over the tier', async () => {
    const { rate_limits: limits } = await loadEmulatorConfig({
      tier: 'basic',
      rate_limits: { quote: { rpm: 5 }, endpoints: { 'audio/speech': { rpm: 9, rpd: 9 } }, models: { Flux1schnell: { rpm: 2 } } },
    });
    expect(limits.quote).toEqual({ rpm: 5, rpd: null });
    expect(limits.endpoints['audio/speech']).toEqual({ rpm: 9, rpd: 9 });
    expect(limits.endpoints['audio/transcriptions']).toEqual({ rpm: 1, rpd: 10 });
    expect(limits.models).toEqual({ MiniMaxH3_33B_Turbo_INT8: { rpm: 1, rpd: 3 }, Flux1schnell: { rpm: 2, rpd: null } });
    expect(limits.jobs_status).toEqual({ rpm: 50, rpd: 200 });
  });

  it('reads tier from a YAML file; an override (the CLI --tier) replaces it; a bad value is located', async () => {
    await writeFile(join(dir, 'basic.yaml'), 'seed: 2\ntier: basic\n');
    expect((await loadEmulatorConfig('basic.yaml', { cwd: dir })).rate_limits.quote).toEqual({ rpm: 50, rpd: 200 });
    const overridden = await loadEmulatorConfig('basic.yaml', { cwd: dir, overrides: { tier: 'premium' } });
    expect(overridden.rate_limits.quote).toEqual({ rpm: 300, rpd: null });
    await writeFile(join(dir, 'gold.yaml'), 'seed: 2\ntier: gold\n');
    await expect(loadEmulatorConfig('gold.yaml', { cwd: dir })).rejects.toThrow('gold.yaml:2:7: tier: expected one of "basic", "premium", null, got string "gold"');
  });

  it('on basic over HTTP: the second transcription in a minute is refused with the published minute and day limits', async () => {
    const emu = await useEmulator({ config: withKeys({ tier: 'basic' }) });
    const body = { source_url: 'https://www.youtube.com/watch?v=abc&deflow_duration=60', include_ts: false, model: 'WhisperLargeV3' };
    const first = await call(emu, 'POST', '/api/v2/audio/transcriptions', { key: API_KEY, json: body });
    expect(first.status).toBe(200);
    expect(rateHeaders(first)).toMatchObject({ 'x-ratelimit-limit': '1', 'x-ratelimit-daily-limit': '10', 'x-ratelimit-source': 'tier' });
    const second = await call(emu, 'POST', '/api/v1/client/transcribe', { key: API_KEY, json: body });
    expect(second.status).toBe(429);
    expect(rateHeaders(second)).toMatchObject({ 'x-ratelimit-type': 'minute' });
    // The rest of the minute window: 60 s, or 59 when the second request lands in the next virtual second.
    expect(['59', '60']).toContain(rateHeaders(second)['retry-after']);
    const poll = await call(emu, 'GET', `/api/v2/jobs/${first.body.data.request_id}`, { key: API_KEY });
    expect(rateHeaders(poll)).toMatchObject({ 'x-ratelimit-limit': '50', 'x-ratelimit-daily-limit': '200', 'x-ratelimit-daily-remaining': '199' });
    const quote = await call(emu, 'POST', '/api/v2/embeddings/price', { key: API_KEY, json: { input: 'hi', model: 'Bge_M3_FP16' } });
    expect(rateHeaders(quote)).toMatchObject({ 'x-ratelimit-limit': '50', 'x-ratelimit-daily-limit': '200' });
    const describe = await call(emu, 'POST', '/api/v2/videos/descriptions', { key: API_KEY, json: { video_url: 'https://youtu.be/x', model: 'Marlin_2B' } });
    expect(rateHeaders(describe)).toMatchObject({ 'x-ratelimit-source': 'fallback' });
  });

  it('on premium over HTTP: 300 per minute and no daily headers', async () => {
    const emu = await useEmulator({ config: withKeys({ tier: 'premium' }) });
    const quote = await call(emu, 'POST', '/api/v2/embeddings/price', { key: API_KEY, json: { input: 'hi', model: 'Bge_M3_FP16' } });
    expect(rateHeaders(quote)['x-ratelimit-limit']).toBe('300');
    expect(rateHeaders(quote)['x-ratelimit-daily-limit']).toBeUndefined();
  });
});
