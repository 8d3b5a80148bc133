import { describe, expect, it } from 'vitest';
import type { PaymentConfig } from '../../src/emulator/types.js';
import { ADMIN_KEY, API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { createManualClock } from '../helpers/manual-clock.js';

const FLUX = { prompt: 'a lighthouse at dusk', model: 'Flux1schnell', width: 512, height: 512, steps: 4, seed: 1 };

function payments(n: number): PaymentConfig[] {
  const start = Date.UTC(2025, 0, 1);
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    amount: 10 + i,
    currency: 'USD',
    status: 'paid' as const,
    provider: 'stripe',
    created_at: new Date(start + i * 3_600_000).toISOString(),
  }));
}

describe('GET /api/v2/account/payments', () => {
  it('answers a Laravel page: data, links and meta with Previous/Next entries, newest first', async () => {
    const emu = await useEmulator({ config: withKeys({ payments: payments(3) }) });
    const res = await call(emu, 'GET', '/api/v2/account/payments', { key: ADMIN_KEY });
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: PaymentConfig) => p.id)).toEqual([3, 2, 1]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(['amount', 'created_at', 'currency', 'id', 'provider', 'status']);
    const path = `${emu.url}/api/v2/account/payments`;
    expect(res.body.links).toEqual({ first: `${path}?page=1`, last: `${path}?page=1`, prev: null, next: null });
    expect(res.body.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 1,
      links: [
        { url: null, label: '&laquo; Previous', page: null, active: false },
        { url: `${path}?page=1`, label: '1', page: 1, active: true },
        { url: null, label: 'Next &raquo;', page: null, active: false },
      ],
      path,
      per_page: 50,
      to: 3,
      total: 3,
    });
  });

  it('generates a small deterministic list when the config has none', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/account/payments', { key: ADMIN_KEY });
    expect(res.body.data.length).toBeGreaterThan(0);
    const times = res.body.data.map((p: PaymentConfig) => Date.parse(p.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const p of res.body.data) {
      expect(['pending', 'paid', 'disputed', 'cancelled', 'failed', 'expired']).toContain(p.status);
      expect(p.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$/);
      expect(typeof p.amount).toBe('number');
      expect(Number.isInteger(p.id)).toBe(true);
    }
  });

  it('pages with limit, clamps it to 1–100 and keeps it in the links', async () => {
    const emu = await useEmulator({ config: withKeys({ payments: payments(120) }) });
    const page2 = await call(emu, 'GET', '/api/v2/account/payments?limit=10&page=2', { key: ADMIN_KEY });
    expect(page2.body.data.map((p: PaymentConfig) => p.id)).toEqual([110, 109, 108, 107, 106, 105, 104, 103, 102, 101]);
    expect(page2.body.meta).toMatchObject({ current_page: 2, from: 11, to: 20, per_page: 10, last_page: 12, total: 120 });
    expect(page2.body.links.prev).toBe(`${emu.url}/api/v2/account/payments?limit=10&page=1`);
    expect(page2.body.links.next).toBe(`${emu.url}/api/v2/account/payments?limit=10&page=3`);
    const labels = page2.body.meta.links.map((l: { label: string }) => l.label);
    expect(labels[0]).toBe('&laquo; Previous');
    expect(labels.at(-1)).toBe('Next &raquo;');
    expect(page2.body.meta.links.find((l: { active: boolean }) => l.active)).toMatchObject({ label: '2', page: 2 });

    const clampedUp = await call(emu, 'GET', '/api/v2/account/payments?limit=500', { key: ADMIN_KEY });
    expect(clampedUp.status).toBe(200);
    expect(clampedUp.body.meta.per_page).toBe(100);
    expect(clampedUp.body.data).toHaveLength(100);
    const clampedDown = await call(emu, 'GET', '/api/v2/account/payments?limit=0', { key: ADMIN_KEY });
    expect(clampedDown.body.meta.per_page).toBe(1);
  });

  it('collapses long page lists into "..." as Laravel does', async () => {
    const emu = await useEmulator({ config: withKeys({ payments: payments(120) }) });
    const res = await call(emu, 'GET', '/api/v2/account/payments?limit=1&page=60', { key: ADMIN_KEY });
    const labels = res.body.meta.links.map((l: { label: string }) => l.label);
    expect(labels).toEqual(['&laquo; Previous', '1', '2', '...', '57', '58', '59', '60', '61', '62', '63', '...', '119', '120', 'Next &raquo;']);
    const gap = res.body.meta.links[3];
    expect(gap).toEqual({ url: null, label: '...', page: null, active: false });
    expect(res.body.links.last).toBe(`${emu.url}/api/v2/account/payments?limit=1&page=120`);
  });

  it('per_page is an alias of limit, ignored when limit is present', async () => {
    const emu = await useEmulator({ config: withKeys({ payments: payments(30) }) });
    const alias = await call(emu, 'GET', '/api/v2/account/payments?per_page=7', { key: ADMIN_KEY });
    expect(alias.body.meta.per_page).toBe(7);
    const both = await call(emu, 'GET', '/api/v2/account/payments?limit=5&per_page=7', { key: ADMIN_KEY });
    expect(both.body.meta.per_page).toBe(5);
    expect(both.body.data).toHaveLength(5);
  });

  it('page defaults to 1, is at least 1, and a page past the end is empty', async () => {
    const emu = await useEmulator({ config: withKeys({ payments: payments(4) }) });
    expect((await call(emu, 'GET', '/api/v2/account/payments?page=0', { key: ADMIN_KEY })).body.meta.current_page).toBe(1);
    const past = await call(emu, 'GET', '/api/v2/account/payments?page=9', { key: ADMIN_KEY });
    expect(past.body.data).toEqual([]);
    expect(past.body.meta).toMatchObject({ current_page: 9, from: null, to: null, last_page: 1, total: 4 });
  });
});

describe('GET /api/v2/key', () => {
  it('describes the calling key; the preview never contains the secret', async () => {
    const secret = 'sk_live_abcdefghijklmnopqrstuvwxyz012345';
    const emu = await useEmulator({ config: { keys: [{ secret, role: 'api', name: 'ci runner', ip_whitelist: ['10.0.0.0/8', '127.0.0.1'], limit: 25 }] } });
    const res = await call(emu, 'GET', '/api/v2/key', { key: secret });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(
      [
        'id', 'name', 'preview', 'role', 'status', 'created_at', 'expires_at', 'last_used_at', 'ip_whitelist',
        'ip_whitelist_count', 'limit', 'reset_interval', 'limit_used', 'limit_remaining', 'limit_resets_at',
      ].sort(),
    );
    expect(data).toMatchObject({
      name: 'ci runner',
      role: 'api',
      status: 'active',
      expires_at: null,
      ip_whitelist: ['10.0.0.0/8', '127.0.0.1'],
      ip_whitelist_count: 2,
      limit: 25,
      reset_interval: 'monthly',
      limit_used: 0,
      limit_remaining: 25,
    });
    expect(Number.isInteger(data.id)).toBe(true);
    expect(res.text).not.toContain(secret);
    expect(data.preview).not.toContain(secret.slice(0, 8));
    expect(data.preview.length).toBeLessThan(secret.length);
  });

  it('never reveals any of a short secret', async () => {
    const emu = await useEmulator({ config: { keys: [{ secret: 'short1', role: 'admin' }] } });
    const res = await call(emu, 'GET', '/api/v2/key', { key: 'short1' });
    expect(res.body.data.preview).not.toMatch(/[a-z0-9]/);
  });
});

describe('POST /api/v2/keys', () => {
  it('creates a key (201) and returns its secret once; the new key works', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { name: 'nightly', role: 'api', ip_whitelist: ['127.0.0.1'] } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'nightly', role: 'api', status: 'active', ip_whitelist: ['127.0.0.1'], ip_whitelist_count: 1 });
    expect(typeof res.body.data.key).toBe('string');
    const mine = await call(emu, 'GET', '/api/v2/key', { key: res.body.data.key });
    expect(mine.status).toBe(200);
    expect(mine.body.data.name).toBe('nightly');
    expect(mine.body.data.key).toBeUndefined();
  });

  it('defaults the role to api and validates the body with a 422 keyed by field', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const created = await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { name: 'plain' } });
    expect(created.body.data.role).toBe('api');
    const invalid = await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { role: 'root', ip_whitelist: ['nope'] } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.statusCode).toBe(422);
    expect(invalid.body.data).toEqual({});
    expect(Object.keys(invalid.body.errors)).toEqual(['name', 'role', 'ip_whitelist.0']);
    expect(invalid.body.message).toBe('The name field is required. (and 2 more errors)');
    expect(invalid.body.code).toBeUndefined();
  });

  it('refuses a key past max_active_keys with 422 active_key_limit_reached', async () => {
    const emu = await useEmulator({ config: withKeys({ max_active_keys: 3 }) });
    expect((await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { name: 'third' } })).status).toBe(201);
    const refused = await call(emu, 'POST', '/api/v2/keys', { key: ADMIN_KEY, json: { name: 'fourth' } });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('active_key_limit_reached');
    expect(refused.body.statusCode).toBe(422);
    expect(typeof refused.body.errors).toBe('object');
    expect(Array.isArray(refused.body.errors)).toBe(false);
  });
});

describe('spending', () => {
  it('a price quote never charges; a finished job is charged exactly its quote', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({ clock, config: withKeys({ balance: 10 }) });
    const quote = await call(emu, 'POST', '/api/v2/images/generations/price', { key: API_KEY, json: FLUX });
    expect(quote.status).toBe(200);
    const price: number = quote.body.data.price;
    expect(price).toBeGreaterThan(0);
    expect((await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY })).body.balance).toBe(10);
    const submitted = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({ data: { request_id: expect.any(String) } });
    // Not charged while it runs.
    expect((await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY })).body.balance).toBe(10);
    clock.advance(3_600_000);
    const status = await call(emu, 'GET', `/api/v2/jobs/${submitted.body.data.request_id}`, { key: API_KEY });
    expect(status.body.data.status).toBe('done');
    const balance = (await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY })).body.balance;
    expect(balance).toBeCloseTo(10 - price, 9);
  });

  it('a failed job is not charged', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({ clock, config: withKeys({ balance: 10, jobs: { fail_rate: 1 } }) });
    const submitted = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX });
    clock.advance(3_600_000);
    const status = await call(emu, 'GET', `/api/v1/client/request-status/${submitted.body.data.request_id}`, { key: API_KEY });
    expect(status.body.data.status).toBe('error');
    expect((await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY })).body.balance).toBe(10);
  });

  it('a submission costing more than the free balance is 422 insufficient_balance with errors.balance', async () => {
    const emu = await useEmulator({ config: withKeys({ balance: 0.000001 }) });
    const res = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Insufficient balance.',
      errors: { balance: ['Insufficient balance.'] },
      statusCode: 422,
      data: {},
      code: 'insufficient_balance',
    });
    expect(emu.stats().submissions).toBe(0);
  });

  it('running jobs hold their price: the balance left for new submissions shrinks', async () => {
    const clock = createManualClock();
    const probe = await useEmulator({ clock, config: withKeys() });
    const price = (await call(probe, 'POST', '/api/v2/images/generations/price', { key: API_KEY, json: FLUX })).body.data.price as number;
    const emu2 = await useEmulator({ clock, config: withKeys({ balance: price * 2 }) });
    expect((await call(emu2, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX })).status).toBe(200);
    expect((await call(emu2, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX })).status).toBe(200);
    const third = await call(emu2, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX });
    expect(third.body.code).toBe('insufficient_balance');
  });

  it('a key over its spend limit gets 402 key_limit_exceeded', async () => {
    const emu = await useEmulator({ config: { keys: [{ secret: 'limited-key-0123456789', role: 'api', limit: 0.000001 }] } });
    const res = await call(emu, 'POST', '/api/v2/images/generations', { key: 'limited-key-0123456789', json: FLUX });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ errors: [], statusCode: 402, data: {}, code: 'key_limit_exceeded' });
    expect(typeof res.body.message).toBe('string');
  });

  it('key spend shows in limit_used once a job is charged', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({ clock, config: { keys: [{ secret: 'limited-key-0123456789', role: 'api', limit: 5 }] } });
    const submitted = await call(emu, 'POST', '/api/v2/images/generations', { key: 'limited-key-0123456789', json: FLUX });
    clock.advance(3_600_000);
    await call(emu, 'GET', `/api/v2/jobs/${submitted.body.data.request_id}`, { key: 'limited-key-0123456789' });
    const key = await call(emu, 'GET', '/api/v2/key', { key: 'limited-key-0123456789' });
    expect(key.body.data.limit_used).toBeGreaterThan(0);
    expect(key.body.data.limit_used + key.body.data.limit_remaining).toBeCloseTo(5, 9);
  });
});
