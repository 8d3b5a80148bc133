import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { correlatedUrl, correlationOfPath, parseCorrelation, correlationToken } from '../../../src/engine/webhooks/webhook-correlation.js';

describe('webhook correlation tokens', () => {
  const key = randomBytes(32);
  const item = { runId: '20261128-abc', node: 'transcribe/clips/c0.mp3', attempt: 2 };

  it('round-trips run, item and attempt through the delivery URL, keeping the URL\'s own path and query', () => {
    const url = new URL(correlatedUrl('https://hooks.example.com/deflow?team=a', key, item));
    expect(url.pathname).toBe('/deflow');
    expect(url.searchParams.get('team')).toBe('a');
    expect(correlationOfPath(key, `${url.pathname}${url.search}`)).toEqual(item);
  });

  it('refuses a token made with another key, or with its item or attempt changed', () => {
    const token = correlationToken(key, item);
    expect(parseCorrelation(randomBytes(32), token)).toBeNull();
    const [run, , attempt, mac] = token.split('.');
    expect(parseCorrelation(key, [run, Buffer.from('transcribe/clips/c1.mp3').toString('base64url'), attempt, mac].join('.'))).toBeNull();
    expect(parseCorrelation(key, token.replace('.2.', '.3.'))).toBeNull();
    expect(correlationOfPath(key, '/hooks')).toBeNull();
    expect(correlationOfPath(key, '/hooks?deflow=garbage')).toBeNull();
  });
});
