import { describe, expect, test } from 'vitest';
import { resolveClientOptions } from '../../src/client/client-options.js';

describe('client options', () => {
  test('defaults to the public service over https', () => {
    const options = resolveClientOptions({ apiKey: 'k-0123456789' });
    expect(options.baseUrl).toBe('https://api.deapi.ai');
    expect(options.retry.retrySubmitOn5xx).toBe(false);
    expect(options.governor).not.toBeNull();
  });

  test('accepts plain http only on loopback, where the emulator runs', () => {
    expect(resolveClientOptions({ apiKey: 'k-1', baseUrl: 'http://127.0.0.1:8787/' }).baseUrl).toBe('http://127.0.0.1:8787');
    expect(resolveClientOptions({ apiKey: 'k-1', baseUrl: 'http://localhost:8787' }).baseUrl).toBe('http://localhost:8787');
    expect(() => resolveClientOptions({ apiKey: 'k-1', baseUrl: 'http://api.deapi.ai' })).toThrow(
      'baseUrl: expected an https: URL (http: only on loopback), got "http://api.deapi.ai"',
    );
  });

  test('refuses a missing key or a malformed option, quoting the option and never the key', () => {
    expect(() => resolveClientOptions({ apiKey: '' })).toThrow(expect.objectContaining({ code: 'E_USAGE_NO_KEY' }));
    expect(() => resolveClientOptions({ apiKey: 'two words' })).toThrow(expect.objectContaining({ code: 'E_USAGE_KEY_FORMAT' }));
    expect(() => resolveClientOptions({ apiKey: 'k-1', maxInFlight: 0 })).toThrow('maxInFlight: expected a number ≥ 1, got 0');
    expect(() => resolveClientOptions({ apiKey: 'k-1', retry: { maxRetries: -1 } })).toThrow('retry.maxRetries: expected a number ≥ 0, got -1');
  });
});
