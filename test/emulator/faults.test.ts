import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { createManualClock } from '../helpers/manual-clock.js';

const FLUX = { prompt: 'a lighthouse at dusk', model: 'Flux1schnell', width: 512, height: 512, steps: 4, seed: 1 };

describe('faults', () => {
  it('error_500_rate 1 answers 500 Server Error before anything is created', async () => {
    const emu = await useEmulator({ config: withKeys({ faults: { error_500_rate: 1 } }) });
    const res = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Server Error', errors: [], statusCode: 500, data: {} });
    expect(emu.stats().submissions).toBe(0);
    expect(emu.jobs()).toEqual([]);
  });

  it('reset_rate 1 drops the connection without an answer and creates nothing', async () => {
    const emu = await useEmulator({ config: withKeys({ faults: { reset_rate: 1 } }) });
    await expect(call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX })).rejects.toThrow();
    expect(emu.jobs()).toEqual([]);
    expect(emu.stats().requests).toBe(1);
  });

  it('drop_answer_rate 1: the submission is accepted and its job created, but the answer is a reset', async () => {
    const emu = await useEmulator({ config: withKeys({ faults: { drop_answer_rate: 1 } }) });
    await expect(call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX })).rejects.toThrow();
    expect(emu.jobs()).toHaveLength(1);
    expect(emu.stats()).toMatchObject({ submissions: 1, dropped_answers: 1 });
    // A price request (no job) is answered.
    const price = await call(emu, 'POST', '/api/v2/images/generations/price', { key: API_KEY, json: FLUX });
    expect(price.status).toBe(200);
  });

  it('POST /_emulator/faults {"drop_answers": N} loses the answers of the next N submissions only', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const set = await call(emu, 'POST', '/_emulator/faults', { json: { drop_answers: 2 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ drop_answers_pending: 2 });
    await expect(call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: FLUX })).rejects.toThrow();
    await expect(call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: { ...FLUX, seed: 2 } })).rejects.toThrow();
    const third = await call(emu, 'POST', '/api/v2/images/generations', { key: API_KEY, json: { ...FLUX, seed: 3 } });
    expect(third.status).toBe(200);
    expect(emu.jobs()).toHaveLength(3);
    expect((await call(emu, 'GET', '/_emulator/faults')).body).toEqual({ drop_answers_pending: 0, drop_answer_rate: 0, dropped_answers: 2 });
    expect((await call(emu, 'GET', '/_emulator/stats')).body).toMatchObject({ dropped_answers: 2, webhooks: { consecutive_failures: 0, breaker_open: false } });
    expect((await call(emu, 'POST', '/_emulator/faults', { json: { drop_answers: -1 } })).status).toBe(422);
    expect((await call(emu, 'POST', '/_emulator/webhooks/enable')).body).toMatchObject({ breaker_open: false });
  });

  it('truncate_rate 1 cuts the body short after announcing its full length', async () => {
    const emu = await useEmulator({ config: withKeys({ faults: { truncate_rate: 1 } }) });
    const res = await request(`${emu.url}/api/v2/account/balance`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
    await expect(res.body.text()).rejects.toThrow();
  });

  it('truncation also applies to result downloads', async () => {
    const clock = createManualClock();
    const emu = await useEmulator({ clock, config: withKeys({ faults: { truncate_rate: 0.5 } }) });
    const attempt = async (path: string, init: Parameters<typeof request>[1] = {}): Promise<string | null> => {
      const res = await request(`${emu.url}${path}`, init);
      return res.body.text().catch(() => null);
    };
    await attempt('/api/v2/images/generations', {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...FLUX, width: 256, height: 256 }),
    });
    const [job] = emu.jobs();
    expect(job).toBeDefined();
    clock.advance(3_600_000);
    let status: string | null = null;
    for (let i = 0; i < 30 && status === null; i++) status = await attempt(`/api/v2/jobs/${job?.request_id}`, { headers: { authorization: `Bearer ${API_KEY}` } });
    const resultUrl = new URL(JSON.parse(status ?? '{}').data.result_url);
    const outcomes: boolean[] = [];
    for (let i = 0; i < 12; i++) outcomes.push((await attempt(resultUrl.pathname + resultUrl.search)) !== null);
    expect(outcomes).toContain(true);
    expect(outcomes).toContain(false);
  });

  it('the same seed replays the same faults', async () => {
    const statuses = async (seed: number): Promise<number[]> => {
      const emu = await useEmulator({ config: withKeys({ seed, faults: { error_500_rate: 0.5 } }) });
      const out: number[] = [];
      for (let i = 0; i < 12; i++) out.push((await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY })).status);
      return out;
    };
    const a = await statuses(3);
    expect(await statuses(3)).toEqual(a);
    expect(a).toContain(500);
    expect(a).toContain(200);
  });

  it('added latency still answers', async () => {
    const emu = await useEmulator({ config: withKeys({ faults: { latency_ms: 20 } }) });
    expect((await call(emu, 'GET', '/api/v2/account/balance', { key: API_KEY })).status).toBe(200);
  });

  it('unknown routes and introspection are never faulted', async () => {
    const emu = await useEmulator({ config: withKeys({ faults: { error_500_rate: 1 } }) });
    expect((await call(emu, 'GET', '/api/v2/nope', { key: API_KEY })).status).toBe(404);
    expect((await call(emu, 'GET', '/_emulator/stats')).status).toBe(200);
  });
});
