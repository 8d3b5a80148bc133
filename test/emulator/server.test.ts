import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';

describe('routing', () => {
  it('an unknown /api route is 404 with the Laravel route message and the default envelope', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/xyz', { key: API_KEY });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'The route api/v2/xyz could not be found.', errors: [], statusCode: 404, data: {} });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('a known path with the wrong method is 405', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/images/generations', { key: API_KEY });
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ statusCode: 405, errors: [], data: {} });
    expect(res.body.message).toContain('GET');
  });

  it('a trailing slash reaches the same route', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/account/balance/', { key: API_KEY });
    expect(res.status).toBe(200);
  });
});

describe('Accept header', () => {
  it('an Accept that admits no JSON is refused with 406', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY, headers: { accept: 'text/html' } });
    expect(res.status).toBe(406);
    expect(res.body).toEqual({ message: 'The Accept header must be application/json.', errors: [], statusCode: 406, data: {} });
  });

  it.each(['application/json', 'application/*', '*/*', 'text/html, application/json;q=0.9', 'application/json; charset=utf-8'])(
    'Accept %s is answered',
    async (accept) => {
      const emu = await useEmulator({ config: withKeys() });
      const res = await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY, headers: { accept } });
      expect(res.status).toBe(200);
    },
  );

  it('no Accept header at all is answered (real clients often send none)', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY });
    expect(res.status).toBe(200);
  });

  it('JSON with quality 0 is not accepted', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY, headers: { accept: 'application/json;q=0, text/html' } });
    expect(res.status).toBe(406);
  });

  it('the Accept check comes before authentication', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/account/balance', { headers: { accept: 'text/plain' } });
    expect(res.status).toBe(406);
  });
});

describe('balance', () => {
  it('v2 and v1 answer a top-level balance in USD, with no data wrapper', async () => {
    const emu = await useEmulator({ config: withKeys({ balance: 42.5 }) });
    for (const path of ['/api/v2/account/balance', '/api/v1/client/balance']) {
      const res = await call(emu, 'GET', path, { key: API_KEY, headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ balance: 42.5 });
    }
  });

  it('balance and models are never throttled and carry no rate-limit headers', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { fallback: { rpm: 1 }, generation: { rpm: 1 } } }) });
    for (let i = 0; i < 4; i++) {
      for (const path of ['/api/v2/account/balance', '/api/v2/models']) {
        const res = await call(emu, 'GET', path, { key: ADMIN_KEY });
        expect(res.status).toBe(200);
        expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
      }
    }
  });
});

describe('body size', () => {
  it('a body over 75 MB is refused with 413', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const big = Buffer.alloc(76 * 1024 * 1024, 0x20);
    const res = await call(emu, 'POST', '/api/v2/images/generations', {
      key: API_KEY,
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ statusCode: 413, errors: [], data: {} });
    expect(typeof res.body.message).toBe('string');
  });

  it('a chunked body over 75 MB is refused with 413 once counted', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const { Readable } = await import('node:stream');
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const stream = new Readable({
      read() {
        sent++;
        this.push(sent <= 80 ? chunk : null);
      },
    });
    const { request } = await import('undici');
    const res = await request(`${emu.url}/api/v2/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: stream,
    });
    expect(res.statusCode).toBe(413);
    await res.body.text();
  });
});

describe('introspection', () => {
  it('counts /api requests by status, without auth, and reports the clock', async () => {
    const emu = await useEmulator({ config: withKeys({ time_scale: 30 }) });
    await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY });
    await call(emu, 'GET', '/api/v2/account/balance');
    await call(emu, 'GET', '/api/v2/nothing-here');
    const stats = await call(emu, 'GET', '/_emulator/stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({ requests: 3, by_status: { '200': 1, '401': 1, '404': 1 }, submissions: 0, polls: 0, quotes: 0, downloads: 0, dropped_answers: 0, webhooks: { delivered: 0, failed: 0, pending: 0, consecutive_failures: 0, breaker_open: false, breaker_trips: 0, suppressed: 0 } });
    const clock = await call(emu, 'GET', '/_emulator/clock');
    expect(clock.body.time_scale).toBe(30);
    expect(typeof clock.body.now_ms).toBe('number');
    const jobs = await call(emu, 'GET', '/_emulator/jobs');
    expect(jobs.body).toEqual([]);
    expect(emu.stats().requests).toBe(3);
  });
});

describe('the clock header (not deAPI’s: for a deflow process in another process)', () => {
  it('stamps every answer with X-Emulator-Clock: <now_ms>;<time_scale>, the virtual time of its Date header', async () => {
    const emu = await useEmulator({ config: withKeys({ time_scale: 30 }) });
    const answers = [
      await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY }),
      await call(emu, 'GET', '/api/v2/account/balance'),
      await call(emu, 'GET', '/api/v2/nothing-here', { key: API_KEY }),
      await call(emu, 'GET', '/results/no-such-job/result.png'),
      await call(emu, 'GET', '/_emulator/clock'),
      await call(emu, 'GET', '/elsewhere'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 404, 404, 200, 404]);
    for (const answer of answers) {
      const match = /^(\d+);30$/.exec(answer.headers['x-emulator-clock'] ?? '');
      expect(match, JSON.stringify(answer.headers)).not.toBeNull();
      const nowMs = Number(match![1]);
      expect(Math.floor(nowMs / 1000)).toBe(Date.parse(answer.headers.date!) / 1000);
      expect(nowMs).toBeLessThanOrEqual(emu.clock.now());
    }
    const reading = answers[4]!;
    expect(Number(reading.headers['x-emulator-clock']!.split(';')[0])).toBeGreaterThanOrEqual(reading.body.now_ms);
  });
});
