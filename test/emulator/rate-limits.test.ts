import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, API_KEY, call, type HttpAnswer, rateHeaders, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { createManualClock } from '../helpers/manual-clock.js';

const FLUX = { prompt: 'a lighthouse at dusk', model: 'Flux1schnell', width: 512, height: 512, steps: 4, seed: 1 };
const ZIMAGE = { prompt: 'a lighthouse at dusk', model: 'ZImageTurbo_INT8', width: 512, height: 512, steps: 8, seed: 1 };
const MUSIC = { model: 'AceStep_1_5_Turbo', duration: 30, inference_steps: 8, caption: 'calm piano' };

const generate = (emu: { url: string }, json: unknown = FLUX, path = '/api/v2/images/generations'): Promise<HttpAnswer> =>
  call(emu, 'POST', path, { key: API_KEY, json });

describe('per-minute window', () => {
  it('counts sequential requests exactly: 3 pass with Remaining 2, 1, 0 and the 4th is 429 minute', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({ clock, config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 3 } } } }) });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await generate(emu);
      expect(res.status).toBe(200);
      remaining.push(res.headers['x-ratelimit-remaining'] ?? '');
      expect(rateHeaders(res)).toMatchObject({
        'x-ratelimit-limit': '3',
        'x-ratelimit-source': 'tier',
        'x-ratelimit-policy': '3;w=60',
        'x-ratelimit-reset': String(Math.ceil((clock.now() + 60_000) / 1000)),
      });
      expect(res.headers['x-ratelimit-type']).toBeUndefined();
      expect(res.headers['retry-after']).toBeUndefined();
      expect(res.headers['x-ratelimit-daily-limit']).toBeUndefined();
    }
    expect(remaining).toEqual(['2', '1', '0']);
    clock.advance(15_000);
    const limited = await generate(emu);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'Too Many Attempts.', errors: [], statusCode: 429, data: {}, code: 'rate_limited' });
    expect(rateHeaders(limited)).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.ceil((clock.now() - 15_000 + 60_000) / 1000)),
      'x-ratelimit-source': 'tier',
      'x-ratelimit-policy': '3;w=60',
      'x-ratelimit-type': 'minute',
      'retry-after': '45',
    });
  });

  it('retry_after_offset_s moves Retry-After off X-RateLimit-Reset (+30: 75 s for a window ending in 45 s; -40: 5 s; never below 1), and the window still reopens at the reset', async () => {
    const clock = createManualClock();
    const later = await useEmulator({ clock, config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 1 } }, retry_after_offset_s: 30 } }) });
    const opened = clock.now();
    expect((await generate(later)).status).toBe(200);
    clock.advance(15_000);
    const limited = await generate(later);
    expect(limited.status).toBe(429);
    expect(limited.headers['x-ratelimit-reset']).toBe(String(Math.ceil((opened + 60_000) / 1000)));
    expect(limited.headers['retry-after']).toBe('75');
    clock.advance(45_000);
    expect((await generate(later)).status).toBe(200);

    const sooner = await useEmulator({ clock, config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 1 } }, retry_after_offset_s: -40 } }) });
    expect((await generate(sooner)).status).toBe(200);
    clock.advance(15_000);
    expect((await generate(sooner)).headers['retry-after']).toBe('5');
    clock.advance(40_000);
    expect((await generate(sooner)).headers['retry-after']).toBe('1');
  });

  it('a refused request uses no allowance and the window reopens after its full length', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({ clock, config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 2 } } } }) });
    await generate(emu);
    await generate(emu);
    for (let i = 0; i < 3; i++) expect((await generate(emu)).status).toBe(429);
    clock.advance(59_999);
    expect((await generate(emu)).status).toBe(429);
    clock.advance(1);
    const reopened = await generate(emu);
    expect(reopened.status).toBe(200);
    expect(reopened.headers['x-ratelimit-remaining']).toBe('1');
    expect(reopened.headers['x-ratelimit-reset']).toBe(String(Math.ceil((clock.now() + 60_000) / 1000)));
  });

  it('a window opens on the first request even when that request is refused', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({
      clock,
      config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 5, rpd: 1 } } } }),
    });
    expect((await generate(emu)).status).toBe(200);
    clock.advance(120_000);
    // The minute window is over; this refused (daily) request opens the next minute window.
    const refused = await generate(emu);
    expect(refused.status).toBe(429);
    expect(refused.headers['x-ratelimit-reset']).toBe(String(Math.ceil((clock.now() + 60_000) / 1000)));
    clock.advance(30_000);
    const again = await generate(emu);
    expect(again.headers['x-ratelimit-reset']).toBe(String(Math.ceil((clock.now() - 30_000 + 60_000) / 1000)));
  });

  it('windows run on the virtual clock: at time_scale 600 a 60 s window lasts 100 ms', async () => {
    const emu = await useEmulator({ config: withKeys({ time_scale: 600, rate_limits: { endpoints: { 'images/generations': { rpm: 1 } } } }) });
    expect((await generate(emu)).status).toBe(200);
    const limited = await generate(emu);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    let reopened = limited;
    for (let i = 0; i < 50 && reopened.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 20));
      reopened = await generate(emu);
    }
    expect(reopened.status).toBe(200);
  });

  it('rejects validation failures with the rate-limit headers, and counts them (limiting runs first)', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 2 } } } }) });
    const invalid = await generate(emu, { prompt: 'x' });
    expect(invalid.status).toBe(422);
    expect(invalid.headers['x-ratelimit-remaining']).toBe('1');
    expect(invalid.headers['x-ratelimit-source']).toBe('tier');
    const empty = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY });
    expect(empty.status).toBe(422);
    expect(empty.headers['x-ratelimit-remaining']).toBe('0');
    expect((await generate(emu)).status).toBe(429);
  });
});

describe('reset times', () => {
  it('windows run from the second of the opening request: Reset is Date + 60 s and Daily-Reset Date + 86400 s', async () => {
    // A manual clock a hair before a whole second: on a running clock the Date header could
    // fall in the second after the one the window opened in, and the test flaked under load.
    const clock = createManualClock(Date.UTC(2025, 0, 15, 12, 0, 0) + 999);
    const emu = await useEmulator({ clock, config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 5, rpd: 50 } } } }) });
    const res = await generate(emu);
    expect(res.headers.date).toBe('Wed, 15 Jan 2025 12:00:00 GMT');
    const date = Date.parse(res.headers.date ?? '') / 1000;
    expect(Number(res.headers['x-ratelimit-reset']) - date).toBe(60);
    expect(Number(res.headers['x-ratelimit-daily-reset']) - date).toBe(86_400);
  });

  it('a window opened mid-second ends on the whole second', async () => {
    const clock = createManualClock(Date.UTC(2025, 0, 15, 12, 0, 0) + 700);
    const emu = await useEmulator({ clock, config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 1 } } } }) });
    const first = await generate(emu);
    expect(first.headers['x-ratelimit-reset']).toBe(String(Date.UTC(2025, 0, 15, 12, 1, 0) / 1000));
    clock.advance(500);
    const limited = await generate(emu);
    expect(limited.headers['retry-after']).toBe('59');
    clock.advance(58_800);
    expect((await generate(emu)).status).toBe(200);
  });
});

describe('per-day window', () => {
  it('adds the Daily-* headers and refuses with type daily once the day is spent', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({ clock, config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 10, rpd: 2 } } } }) });
    const opened = clock.now();
    const first = await generate(emu);
    expect(rateHeaders(first)).toEqual({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '9',
      'x-ratelimit-reset': String(Math.ceil((opened + 60_000) / 1000)),
      'x-ratelimit-daily-limit': '2',
      'x-ratelimit-daily-remaining': '1',
      'x-ratelimit-daily-reset': String(Math.ceil((opened + 86_400_000) / 1000)),
      'x-ratelimit-source': 'tier',
      'x-ratelimit-policy': '10;w=60, 2;w=86400',
    });
    clock.advance(1000);
    expect((await generate(emu)).headers['x-ratelimit-daily-remaining']).toBe('0');
    clock.advance(1000);
    const limited = await generate(emu);
    expect(limited.status).toBe(429);
    expect(limited.headers['x-ratelimit-type']).toBe('daily');
    expect(limited.headers['retry-after']).toBe(String(86_400 - 2));
    expect(limited.headers['x-ratelimit-remaining']).toBe('8');
    expect(limited.headers['x-ratelimit-daily-remaining']).toBe('0');
    clock.advance(86_400_000 - 2000);
    expect((await generate(emu)).status).toBe(200);
  });

  it('says daily when both windows are spent', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 1, rpd: 1 } } } }) });
    await generate(emu);
    const limited = await generate(emu);
    expect(limited.headers['x-ratelimit-type']).toBe('daily');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(60);
  });
});

describe('pools', () => {
  it('v1 and v2 of one endpoint share a bucket', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { endpoints: { 'images/generations': { rpm: 3 } } } }) });
    expect((await generate(emu)).headers['x-ratelimit-remaining']).toBe('2');
    expect((await generate(emu, FLUX, '/api/v1/client/txt2img')).headers['x-ratelimit-remaining']).toBe('1');
    expect((await generate(emu)).headers['x-ratelimit-remaining']).toBe('0');
    expect((await generate(emu, FLUX, '/api/v1/client/txt2img')).status).toBe(429);
  });

  it('every submission endpoint has its own bucket at the generation rate', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { generation: { rpm: 2, rpd: 50 } } }) });
    expect((await generate(emu)).headers['x-ratelimit-policy']).toBe('2;w=60, 50;w=86400');
    expect((await generate(emu)).headers['x-ratelimit-remaining']).toBe('0');
    const music = await call(emu, 'POST', '/api/v2/audio/music', { key: API_KEY, json: MUSIC });
    expect(music.headers['x-ratelimit-remaining']).toBe('1');
    expect(music.headers['x-ratelimit-source']).toBe('tier');
  });

  it('all price endpoints of both versions share one quote bucket, apart from generation', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { quote: { rpm: 3 }, generation: { rpm: 100 } } }) });
    const a = await call(emu, 'POST', '/api/v2/images/generations/price', { key: API_KEY, json: FLUX });
    const b = await call(emu, 'POST', '/api/v1/client/txt2img/price-calculation', { key: API_KEY, json: FLUX });
    const c = await call(emu, 'POST', '/api/v2/audio/music/price', { key: API_KEY, json: MUSIC });
    expect([a, b, c].map((r) => r.status)).toEqual([200, 200, 200]);
    expect([a, b, c].map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0']);
    expect(a.headers['x-ratelimit-source']).toBe('tier');
    expect(a.headers['x-ratelimit-policy']).toBe('3;w=60');
    const d = await call(emu, 'POST', '/api/v1/client/txt2music/price-calculation', { key: API_KEY, json: MUSIC });
    expect(d.status).toBe(429);
    const submission = await generate(emu);
    expect(submission.status).toBe(200);
    expect(submission.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('prompt enhancement has its own bucket', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { enhancement: { rpm: 1 }, generation: { rpm: 1 } } }) });
    const enhance = { prompt: 'a cat on a mat', type: 'images.generations', model_slug: 'Flux1schnell' };
    expect((await generate(emu)).status).toBe(200);
    const first = await call(emu, 'POST', '/api/v2/prompts/enhancements', { key: API_KEY, json: enhance });
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('0');
    expect((await call(emu, 'POST', '/api/v2/prompts/enhancements', { key: API_KEY, json: enhance })).status).toBe(429);
  });

  it('a per-model override has its own bucket with Source model; other models keep the tier pool', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { generation: { rpm: 5 }, models: { Flux1schnell: { rpm: 2 } } } }) });
    const flux = await generate(emu);
    expect(rateHeaders(flux)).toMatchObject({ 'x-ratelimit-source': 'model', 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1', 'x-ratelimit-policy': '2;w=60' });
    const other = await generate(emu, ZIMAGE);
    expect(rateHeaders(other)).toMatchObject({ 'x-ratelimit-source': 'tier', 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4' });
    await generate(emu);
    const limited = await generate(emu);
    expect(limited.status).toBe(429);
    expect(limited.headers['x-ratelimit-source']).toBe('model');
    expect((await generate(emu, ZIMAGE)).status).toBe(200);
  });

  it('a request with no recognised model counts against the tier pool', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { generation: { rpm: 5 }, models: { Flux1schnell: { rpm: 2 } } } }) });
    const unknown = await generate(emu, { ...FLUX, model: 'NoSuchModel' });
    expect(unknown.status).toBe(422);
    expect(unknown.headers['x-ratelimit-source']).toBe('tier');
    expect(unknown.headers['x-ratelimit-remaining']).toBe('4');
    const unparseable = await call(emu, 'POST', '/api/v2/images/generations', {
      key: API_KEY,
      body: '{"model": "Flux1schnell", oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(unparseable.status).toBe(422);
    expect(unparseable.headers['x-ratelimit-source']).toBe('tier');
    expect(unparseable.headers['x-ratelimit-remaining']).toBe('3');
  });

  it('with no tier rate the fallback applies with Source fallback', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { generation: null, fallback: { rpm: 2 } } }) });
    const res = await generate(emu);
    expect(rateHeaders(res)).toMatchObject({ 'x-ratelimit-source': 'fallback', 'x-ratelimit-limit': '2', 'x-ratelimit-policy': '2;w=60' });
  });

  it('an endpoint rate of null leaves that endpoint to the fallback', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { endpoints: { 'images/generations': null }, fallback: { rpm: 7 } } }) });
    const res = await generate(emu);
    expect(res.headers['x-ratelimit-source']).toBe('fallback');
    expect(res.headers['x-ratelimit-limit']).toBe('7');
  });

  it('payments and key reads spend the fallback rate', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { fallback: { rpm: 4, rpd: 9 } } }) });
    const key = await call(emu, 'GET', '/api/v2/key', { key: ADMIN_KEY });
    expect(rateHeaders(key)).toMatchObject({ 'x-ratelimit-source': 'fallback', 'x-ratelimit-remaining': '3', 'x-ratelimit-daily-remaining': '8' });
    const payments = await call(emu, 'GET', '/api/v2/account/payments', { key: ADMIN_KEY });
    expect(payments.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('job-status polls spend the jobs_status pool, 404s included, shared by v1 and v2', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { jobs_status: { rpm: 3 } } }) });
    const v2 = await call(emu, 'GET', '/api/v2/jobs/00000000-0000-4000-8000-000000000000', { key: API_KEY });
    expect(v2.status).toBe(404);
    expect(v2.body).toEqual({ message: 'No query results for the requested resource.', errors: [], statusCode: 404, data: {} });
    expect(rateHeaders(v2)).toMatchObject({ 'x-ratelimit-source': 'tier', 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '2' });
    const v1 = await call(emu, 'GET', '/api/v1/client/request-status/00000000-0000-4000-8000-000000000000', { key: API_KEY });
    expect(v1.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('jobs_status null leaves polls unthrottled, with no rate-limit headers', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { jobs_status: null } }) });
    for (let i = 0; i < 3; i++) {
      const res = await call(emu, 'GET', '/api/v2/jobs/00000000-0000-4000-8000-000000000000', { key: API_KEY });
      expect(res.status).toBe(404);
      expect(rateHeaders(res)).toEqual({});
    }
  });

  it('the defaults are spec-exact: generation 300 rpm, quote 600 rpm, no daily limit', async () => {
    const emu = await useEmulator({ config: withKeys() });
    expect((await generate(emu)).headers['x-ratelimit-policy']).toBe('300;w=60');
    const price = await call(emu, 'POST', '/api/v2/images/generations/price', { key: API_KEY, json: FLUX });
    expect(price.headers['x-ratelimit-policy']).toBe('600;w=60');
    expect(price.headers['x-ratelimit-daily-limit']).toBeUndefined();
  });
});

describe('key creation cap', () => {
  it('answers 429 key-creation with Source static, the hourly bucket and no Daily-* headers', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({ clock, config: withKeys({ rate_limits: { key_creation_per_hour: 2, fallback: { rpm: 100, rpd: 1000 } } }) });
    const first = await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { name: 'ci 1' } });
    expect(first.status).toBe(201);
    expect(rateHeaders(first)).toEqual({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-reset': String(Math.ceil((clock.now() + 3_600_000) / 1000)),
      'x-ratelimit-source': 'static',
      'x-ratelimit-policy': '2;w=3600',
    });
    clock.advance(600_000);
    expect((await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { name: 'ci 2' } })).status).toBe(201);
    const limited = await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { name: 'ci 3' } });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ message: 'Too Many Attempts.', code: 'rate_limited', statusCode: 429 });
    expect(rateHeaders(limited)).toEqual({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.ceil((clock.now() - 600_000 + 3_600_000) / 1000)),
      'x-ratelimit-source': 'static',
      'x-ratelimit-policy': '2;w=3600',
      'x-ratelimit-type': 'key-creation',
      'retry-after': '3000',
    });
    clock.advance(3_000_000);
    expect((await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { name: 'ci 4' } })).status).toBe(201);
  });

  it('a refused creation (422) does not use the hourly allowance', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { key_creation_per_hour: 1 } }) });
    const invalid = await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: {} });
    expect(invalid.status).toBe(422);
    expect(invalid.headers['x-ratelimit-remaining']).toBe('1');
    expect((await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { name: 'ok' } })).status).toBe(201);
  });
});
