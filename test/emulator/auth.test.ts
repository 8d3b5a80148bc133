import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, API_KEY, call, rateHeaders, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { createManualClock } from '../helpers/manual-clock.js';

const unauthenticated = (code: string) => ({ message: 'Unauthenticated.', errors: [], statusCode: 401, data: {}, code });

// Calls from a second loopback address (Linux routes all of 127.0.0.0/8 to lo).
const fromOtherAddress = new Agent({ localAddress: '127.0.0.2' });
afterAll(async () => {
  await fromOtherAddress.close();
});

describe('401', () => {
  it('no Authorization header is missing_key, with no rate-limit headers', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/key');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthenticated('missing_key'));
    expect(rateHeaders(res)).toEqual({});
  });

  it('non-Bearer credentials are missing_key', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/key', { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
    expect(res.body.code).toBe('missing_key');
  });

  it('an unknown token is invalid_key', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/key', { key: 'not-a-key' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthenticated('invalid_key'));
    expect(rateHeaders(res)).toEqual({});
  });

  it('a revoked key is key_revoked', async () => {
    const emu = await useEmulator({ config: { keys: [{ secret: 'revoked-key-0123456789', role: 'api', status: 'revoked' }] } });
    const res = await call(emu, 'GET', '/api/v2/key', { key: 'revoked-key-0123456789' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthenticated('key_revoked'));
  });

  it('a key past expires_at is key_expired; one expiring later still works', async () => {
    const emu = await useEmulator({
      config: {
        keys: [
          { secret: 'expired-key-0123456789', role: 'api', expires_at: '2020-01-01T00:00:00Z' },
          { secret: 'future-key-0123456789', role: 'api', expires_at: '2999-01-01T00:00:00+00:00' },
        ],
      },
    });
    const expired = await call(emu, 'GET', '/api/v2/key', { key: 'expired-key-0123456789' });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual(unauthenticated('key_expired'));
    const future = await call(emu, 'GET', '/api/v2/key', { key: 'future-key-0123456789' });
    expect(future.status).toBe(200);
  });

  it('expiry follows the virtual clock', async () => {
    const clock = createManualClock();
    const expiresAt = new Date(clock.now() + 3_600_000).toISOString();
    const emu = await useEmulator({ clock, config: { keys: [{ secret: 'soon-expiring-key-01', role: 'api', expires_at: expiresAt }] } });
    expect((await call(emu, 'GET', '/api/v2/key', { key: 'soon-expiring-key-01' })).status).toBe(200);
    clock.advance(3_600_000);
    const res = await call(emu, 'GET', '/api/v2/key', { key: 'soon-expiring-key-01' });
    expect(res.body.code).toBe('key_expired');
  });

  it('401s are never counted by the limiter', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { fallback: { rpm: 2 } } }) });
    for (let i = 0; i < 5; i++) await call(emu, 'GET', '/api/v2/key', { key: 'wrong' });
    const res = await call(emu, 'GET', '/api/v2/key', { key: API_KEY });
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
  });
});

describe('403 insufficient_permissions', () => {
  it('an api key cannot read payments; the refusal carries no rate-limit headers', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/account/payments', { key: API_KEY });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ errors: [], statusCode: 403, data: {}, code: 'insufficient_permissions' });
    expect(typeof res.body.message).toBe('string');
    expect(rateHeaders(res)).toEqual({});
  });

  it('an api key cannot create keys', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/keys', { key: API_KEY, json: { name: 'x' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_permissions');
  });

  it('GET /api/v2/key works with both roles', async () => {
    const emu = await useEmulator({ config: withKeys() });
    expect((await call(emu, 'GET', '/api/v2/key', { key: API_KEY })).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v2/key', { key: ADMIN_KEY })).status).toBe(200);
  });

  it('role refusals do not spend the account pool', async () => {
    const emu = await useEmulator({ config: withKeys({ rate_limits: { fallback: { rpm: 2 } } }) });
    for (let i = 0; i < 4; i++) expect((await call(emu, 'GET', '/api/v2/account/payments', { key: API_KEY })).status).toBe(403);
    const res = await call(emu, 'GET', '/api/v2/account/payments', { key: ADMIN_KEY });
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
  });
});

describe('IP whitelist', () => {
  const keyWith = (ip_whitelist: string[]) => ({ keys: [{ secret: 'whitelisted-key-0123456789', role: 'admin' as const, ip_whitelist }] });
  const KEY = 'whitelisted-key-0123456789';

  it('a single address on the list is allowed; other addresses get 403 ip_not_allowed', async () => {
    const emu = await useEmulator({ config: keyWith(['127.0.0.1']) });
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY })).status).toBe(200);
    const refused = await call(emu, 'GET', '/api/v2/key', { key: KEY, dispatcher: fromOtherAddress });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ errors: [], statusCode: 403, data: {}, code: 'ip_not_allowed' });
  });

  it('a CIDR range admits every address inside it', async () => {
    const emu = await useEmulator({ config: keyWith(['127.0.0.0/30']) });
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY })).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY, dispatcher: fromOtherAddress })).status).toBe(200);
  });

  it('a CIDR range refuses addresses outside it', async () => {
    const emu = await useEmulator({ config: keyWith(['10.0.0.0/8']) });
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY })).body.code).toBe('ip_not_allowed');
  });

  it('an IPv4-mapped IPv6 entry matches the IPv4 caller', async () => {
    const emu = await useEmulator({ config: keyWith(['::ffff:127.0.0.1']) });
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY })).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY, dispatcher: fromOtherAddress })).status).toBe(403);
  });

  it('an IPv4-mapped CIDR entry matches callers in the mapped range', async () => {
    const emu = await useEmulator({ config: keyWith(['::ffff:127.0.0.0/104']) });
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY, dispatcher: fromOtherAddress })).status).toBe(200);
  });

  it('a caller seen as an IPv4-mapped address matches a plain IPv4 entry', async () => {
    const emu = await useEmulator({ host: '::', config: keyWith(['127.0.0.1']) });
    const res = await call({ url: `http://127.0.0.1:${emu.port}` }, 'GET', '/api/v2/key', { key: KEY });
    expect(res.status).toBe(200);
  });

  it('after ip_refusals_before_429 refusals the address gets 429 ip-not-allowed', async () => {
    const emu = await useEmulator({ config: { ...keyWith(['10.0.0.1']), rate_limits: { ip_refusals_before_429: 3 } } });
    for (let i = 0; i < 3; i++) {
      const res = await call(emu, 'GET', '/api/v2/key', { key: KEY });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('ip_not_allowed');
    }
    const limited = await call(emu, 'GET', '/api/v2/key', { key: KEY });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'Too Many Attempts.', errors: [], statusCode: 429, data: {}, code: 'rate_limited' });
    const headers = rateHeaders(limited);
    expect(headers['x-ratelimit-type']).toBe('ip-not-allowed');
    expect(headers['x-ratelimit-limit']).toBe('3');
    expect(headers['x-ratelimit-remaining']).toBe('0');
    expect(headers['x-ratelimit-source']).toBe('static');
    expect(headers['x-ratelimit-policy']).toBe('3;w=60');
    expect(Number(headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(Number.isInteger(Number(headers['x-ratelimit-reset']))).toBe(true);
    expect(headers['x-ratelimit-daily-limit']).toBeUndefined();
  });

  it('IP refusals are counted per address and never against the account', async () => {
    const emu = await useEmulator({
      config: {
        keys: [
          { secret: 'whitelisted-key-0123456789', role: 'admin', ip_whitelist: ['127.0.0.2'] },
          { secret: 'open-key-0123456789', role: 'admin' },
        ],
        rate_limits: { ip_refusals_before_429: 1, fallback: { rpm: 3 } },
      },
    });
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY })).status).toBe(403);
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY })).status).toBe(429);
    // The refused address is throttled; the allowed address is not, and the account pool is untouched.
    expect((await call(emu, 'GET', '/api/v2/key', { key: KEY, dispatcher: fromOtherAddress })).status).toBe(200);
    const open = await call(emu, 'GET', '/api/v2/key', { key: 'open-key-0123456789' });
    expect(open.status).toBe(200);
    expect(open.headers['x-ratelimit-remaining']).toBe('1');
  });
});
