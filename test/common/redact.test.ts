import { describe, expect, test } from 'vitest';
import { createRedactor, redactUrl } from '../../src/common/redact.js';

describe('redactor', () => {
  const redact = createRedactor(['123|s3cretKeyValue']);

  test('masks the key raw, URL-encoded and JSON-escaped', () => {
    expect(redact('key 123|s3cretKeyValue here')).toBe('key [redacted] here');
    expect(redact('q=123%7Cs3cretKeyValue')).toBe('q=[redacted]');
  });

  test('masks bearer credentials whatever the key', () => {
    expect(redact('authorization: Bearer abc.def-ghi')).toBe('authorization: Bearer [redacted]');
  });

  test('masks webhook secrets in JSON and form text', () => {
    expect(redact('{"webhook_secret":"a-very-long-secret-of-32-chars-x"}')).toBe('{"webhook_secret":"[redacted]"}');
    expect(redact('webhook_secret=abcdefghijklmnopqrstuvwxyz012345&x=1')).toBe('webhook_secret=[redacted]&x=1');
  });

  test('masks the query of signed URLs only', () => {
    expect(redact('get https://results.deapi.ai/1/a.png?X-Amz-Signature=abc&X-Amz-Expires=60 now')).toBe(
      'get https://results.deapi.ai/1/a.png?[redacted] now',
    );
    expect(redact('http://127.0.0.1:1/results/x/r.png?expires=1&signature=ff')).toBe('http://127.0.0.1:1/results/x/r.png?[redacted]');
    expect(redact('https://api.deapi.ai/api/v2/models?limit=50&page=2')).toBe('https://api.deapi.ai/api/v2/models?limit=50&page=2');
  });

  test('ignores secrets too short to mask safely', () => {
    expect(createRedactor(['ab'])('abc')).toBe('abc');
  });

  test('redactUrl keeps origin and path', () => {
    expect(redactUrl('https://h.example/a/b.png?token=1#x')).toBe('https://h.example/a/b.png?[redacted]');
    expect(redactUrl('https://h.example/a/b.png')).toBe('https://h.example/a/b.png');
  });

  test('redactUrl names a URL without an origin by its scheme, never as "null"', () => {
    expect(redactUrl('file:///etc/passwd')).toBe('file:///etc/passwd');
    expect(redactUrl('ftp://user:secret@h.example/a?k=1')).toBe('ftp://h.example/a?[redacted]');
    expect(redactUrl('gopher://h.example:70/x')).toBe('gopher://h.example:70/x');
  });
});
