import { describe, expect, test } from 'vitest';
import { statusCount, useClient, useEmulator } from './support.js';

describe('account calls', () => {
  test('payments page, calling key and balance with an admin key', async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator, { apiKey: emulator.keys.admin });
    const page = await client.payments({ limit: 2, page: 1 });
    expect(page.data).toHaveLength(2);
    expect(page.meta).toMatchObject({ current_page: 1, per_page: 2 });
    expect(typeof page.data[0]!.amount).toBe('number');
    const key = await client.key();
    expect(key).toMatchObject({ role: 'admin', status: 'active' });
    expect(JSON.stringify(key)).not.toContain(emulator.keys.admin);
    expect(await client.balance()).toEqual({ balance: 100 });
  });

  test('key creation is paced by its hourly bucket instead of meeting a 429', async () => {
    const emulator = await useEmulator({ time_scale: 36_000, rate_limits: { key_creation_per_hour: 1 } });
    const client = useClient(emulator, { apiKey: emulator.keys.admin });
    const first = await client.createKey({ name: 'ci one', role: 'api' });
    const second = await client.createKey({ name: 'ci two', role: 'api' });
    expect(first.name).toBe('ci one');
    expect(second.name).toBe('ci two');
    expect(statusCount(emulator, 429)).toBe(0);
  });
});
