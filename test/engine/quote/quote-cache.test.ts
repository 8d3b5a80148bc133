import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../../src/common/clock.js';
import { quoteRun } from '../../../src/engine/quote/quote.js';
import { openQuoteCache, type QuoteCacheEntry } from '../../../src/engine/quote/quote-cache.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { clientFor, stepOf, useTempDir, writeMp3s } from './quote-fixtures.js';

const WHISPER = { model: 'WhisperLargeV3', include_ts: false };

describe('quote cache', () => {
  it('a second quote within the TTL sends no price request and says the prices come from the cache', async () => {
    const emulator = await useEmulator();
    const { prices } = clientFor(emulator);
    const dir = await useTempDir();
    const stateDir = join(dir, '.deflow');
    const files = await writeMp3s(dir, [10, 20, 35, 50, 80, 130, 210, 340, 550]);
    const input = { workflow: 'w.yaml', steps: [stepOf('t', 'audio.transcribe', files.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] })))] };
    const open = () => openQuoteCache({ stateDir, scope: emulator.url, clock: emulator.clock });

    const first = await quoteRun(input, { prices, cache: await open() });
    expect(first.price_requests).toBe(4);
    const saved = JSON.parse(await readFile(join(stateDir, 'quotes.json'), 'utf8')) as { format_version: number; entries: Record<string, QuoteCacheEntry> };
    expect(saved.format_version).toBe(1);
    const entries = Object.values(saved.entries);
    expect(entries).toHaveLength(4);
    expect(entries[0]).toMatchObject({ task: 'audio.transcribe', params: { model: 'WhisperLargeV3', include_ts: false } });

    const second = await quoteRun(input, { prices, cache: await open() });
    expect(second.price_requests).toBe(0);
    expect(second.cache_hits).toBe(4);
    expect(emulator.stats().quotes).toBe(4);
    expect(second.total).toEqual(first.total);
    const items = second.steps[0]!.quoted_items;
    expect(items.filter((i) => i.method === 'derived').every((i) => i.derived_from?.source === 'cache')).toBe(true);
    expect(items.filter((i) => i.method === 'derived')).toHaveLength(4);
    expect(items.filter((i) => i.method === 'fitted')).toHaveLength(5);
  });

  it('answers older than the TTL, from another service, or with the cache off are asked again', async () => {
    const emulator = await useEmulator();
    const { prices } = clientFor(emulator);
    const dir = await useTempDir();
    const stateDir = join(dir, '.deflow');
    const files = await writeMp3s(dir, [10]);
    const input = { workflow: 'w.yaml', steps: [stepOf('t', 'audio.transcribe', files.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] })))] };
    const clock = createVirtualClock({ timeScale: 1, startMs: Date.parse('2026-01-01T00:00:00Z') });
    await quoteRun(input, { prices, cache: await openQuoteCache({ stateDir, scope: emulator.url, clock }) });
    const later = createVirtualClock({ timeScale: 1, startMs: Date.parse('2026-01-01T02:00:00Z') });
    const reuse = await quoteRun(input, { prices, cache: await openQuoteCache({ stateDir, scope: emulator.url, clock: later, ttlMs: 3 * 3600e3 }) });
    expect(reuse.price_requests).toBe(0);
    expect(reuse.steps[0]!.quoted_items[0]!.basis).toBe('quote cache (answered 2.0 h ago)');
    const expired = await quoteRun(input, { prices, cache: await openQuoteCache({ stateDir, scope: emulator.url, clock: later, ttlMs: 3600e3 }) });
    expect(expired.price_requests).toBe(1);
    const elsewhere = await quoteRun(input, { prices, cache: await openQuoteCache({ stateDir, scope: 'https://api.deapi.ai', clock }) });
    expect(elsewhere.price_requests).toBe(1);
    const off = await quoteRun(input, { prices, cache: await openQuoteCache({ stateDir, scope: emulator.url, clock, enabled: false }) });
    expect(off.price_requests).toBe(1);
  });
});
