import { isIP } from 'node:net';
import { redactUrl } from '../common/index.js';
import { UnsafeUrlError } from './errors/unsafe-url-error.js';

/** True for `localhost`, 127.0.0.0/8 and ::1 (the emulator's hosts). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '0:0:0:0:0:0:0:1';
}

/**
 * Checks a result URL before fetching it: `https:` only, plain `http:` for loopback hosts
 * only (the emulator), nothing else. Returns the parsed URL.
 */
export function checkResultUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnsafeUrlError(redactUrl(url), 'not an absolute URL');
  }
  if (parsed.username || parsed.password) throw new UnsafeUrlError(redactUrl(url), 'credentials in the URL');
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:') {
    if (isLoopbackHost(parsed.hostname)) return parsed;
    throw new UnsafeUrlError(redactUrl(url), 'plain http: is allowed for loopback hosts only');
  }
  throw new UnsafeUrlError(redactUrl(url), `scheme ${parsed.protocol} is not allowed`);
}

/** True when the API key may travel with a request to `url` (same origin as the base URL). */
export function sameOrigin(url: URL, baseUrl: string): boolean {
  return url.origin === new URL(baseUrl).origin;
}
