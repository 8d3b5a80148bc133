import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadEmulatorConfig } from '../../src/emulator/config/config.js';
import { API_KEY, call, useEmulator, withKeys } from '../helpers/emulator-http.js';
import { startReceiver } from './webhook-receiver.js';

// Literal shapes from the public docs and deAPI's clients (service-facts.md §4, §5;
// research/real-clients.md §4), against the spec's (spec/service-interface.md, Common envelope).
const LIVE = withKeys({ profile: 'live' });
const FAST_LIVE = withKeys({ profile: 'live', time_scale: 1000, jobs: { duration_ms: 2000 } });
const generation = { prompt: 'a red fox', model: 'Flux1schnell', width: 512, height: 512, steps: 4 };

describe('profile: live, model list and balance', () => {
  it('answers the model list as a top-level data[] with links and meta, paged by per_page and page', async () => {
    const emu = await useEmulator({ config: LIVE });
    for (const path of ['/api/v1/client/models?per_page=15&page=2', '/api/v2/models?per_page=15&page=2']) {
      const res = await call(emu, 'GET', path, { key: API_KEY });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'links', 'meta']);
      expect(Array.isArray(res.body.data)).toBe(true);
      expect(res.body.data).toHaveLength(14);
      expect(Object.keys(res.body.links).sort()).toEqual(['first', 'last', 'next', 'prev']);
      expect(res.body.meta).toMatchObject({ current_page: 2, last_page: 2, per_page: 15, total: 29 });
      expect(res.body.links.prev).toMatch(/[?&]page=1$/);
    }
  });

  it('filters with filter[inference_types]=a,b as the SDK sends it', async () => {
    const emu = await useEmulator({ config: LIVE });
    const res = await call(emu, 'GET', `/api/v1/client/models?per_page=50&page=1&${encodeURIComponent('filter[inference_types]')}=txt2audio,txt2music`, { key: API_KEY });
    const slugs = (res.body.data as { slug: string }[]).map((m) => m.slug).sort();
    expect(slugs).toEqual([
      'AceStep_1_5_Base', 'AceStep_1_5_Turbo', 'AceStep_1_5_XL_Turbo_INT8', 'Chatterbox', 'Kokoro',
      'Qwen3_TTS_12Hz_1_7B_Base', 'Qwen3_TTS_12Hz_1_7B_CustomVoice', 'Qwen3_TTS_12Hz_1_7B_VoiceDesign',
    ]);
    expect(res.body.meta).toMatchObject({ total: 8, last_page: 1 });
  });

  it('keeps the spec envelope { data: { data: [...] } } in the default profile', async () => {
    const emu = await useEmulator({ config: withKeys() });
    const res = await call(emu, 'GET', '/api/v2/models?per_page=15', { key: API_KEY });
    expect(Array.isArray(res.body.data.data)).toBe(true);
    expect(Array.isArray(res.body.data)).toBe(false);
  });

  it('answers the balance at the top and under data in live, at the top only in spec', async () => {
    const live = await useEmulator({ config: { ...LIVE, balance: 42.5 } });
    for (const path of ['/api/v2/account/balance', '/api/v1/client/balance']) {
      expect((await call(live, 'GET', path, { key: API_KEY })).body).toEqual({ balance: 42.5, data: { balance: 42.5 } });
    }
    const spec = await useEmulator({ config: withKeys({ balance: 42.5 }) });
    expect((await call(spec, 'GET', '/api/v2/account/balance', { key: API_KEY })).body).toEqual({ balance: 42.5 });
  });
});

describe('profile: live, webhooks', () => {
  const submitWith = async (config: Parameters<typeof useEmulator>[0], webhookUrl: string) => {
    const emu = await useEmulator(config);
    return call(emu, 'POST', '/api/v1/client/txt2img', { key: API_KEY, json: { ...generation, webhook_url: webhookUrl } });
  };

  it.each(['http://127.0.0.1:5678/webhook-waiting/1/webhook', 'http://10.1.2.3/hook', 'http://192.168.1.20:5678/x', 'http://172.20.0.5/x', 'http://localhost:5678/x', 'http://[::1]:5678/x'])(
    'accepts the http webhook URL %s (loopback or private)',
    async (url) => {
      expect((await submitWith({ config: LIVE }, url)).status).toBe(200);
    },
  );

  it('refuses an http webhook URL to a public address, and any http URL in the spec profile', async () => {
    const live = await submitWith({ config: LIVE }, 'http://8.8.8.8/hook');
    expect(live.status).toBe(422);
    expect(live.body.errors).toEqual({ webhook_url: ['The webhook url field must start with one of the following: https://.'] });
    const spec = await submitWith({ config: withKeys() }, 'http://127.0.0.1:5678/hook');
    expect(spec.status).toBe(422);
    expect(spec.body.errors.webhook_url).toEqual(['The webhook url field must start with one of the following: https://.']);
  });

  it('generates an account webhook secret from the seed, unless the config sets one or null', async () => {
    const a = await loadEmulatorConfig({ profile: 'live', seed: 3 });
    const b = await loadEmulatorConfig({ profile: 'live', seed: 3 });
    const c = await loadEmulatorConfig({ profile: 'live', seed: 4 });
    expect(a.webhooks.secret).toMatch(/^emu_whsec_[0-9a-f]{64}$/);
    expect(b.webhooks.secret).toBe(a.webhooks.secret);
    expect(c.webhooks.secret).not.toBe(a.webhooks.secret);
    expect((await loadEmulatorConfig({ profile: 'live', webhooks: { secret: 'mine' } })).webhooks.secret).toBe('mine');
    expect((await loadEmulatorConfig({ profile: 'live', webhooks: { secret: null } })).webhooks.secret).toBeNull();
    expect((await loadEmulatorConfig({})).webhooks.secret).toBeNull();
  });

  it('signs a delivery to a private http URL that came with no webhook_secret, with the account secret', async () => {
    const receiver = await startReceiver();
    const emu = await useEmulator({ config: FAST_LIVE });
    const secret = emu.config.webhooks.secret ?? '';
    const res = await call(emu, 'POST', '/api/v1/client/txt2img', { key: API_KEY, json: { ...generation, webhook_url: receiver.url } });
    expect(res.status).toBe(200);
    await receiver.waitFor(2);
    for (const delivery of receiver.deliveries) {
      const timestamp = String(delivery.headers['x-deapi-timestamp']);
      const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${delivery.body}`).digest('hex')}`;
      expect(delivery.headers['x-deapi-signature']).toBe(expected);
    }
    expect(receiver.deliveries.map((d) => d.headers['x-deapi-event'])).toEqual(['job.processing', 'job.completed']);
  });
});
