/**
 * `--queue` and `--governor` take a Redis URL: `redis://[[user]:password@]HOST[:PORT][/DB]`,
 * `rediss://…` (TLS), or `unix:///path/to/redis.sock[?db=N]`. The password never appears in
 * a message: {@link describeRedisUrl} is what errors and logs show.
 */
import { DeflowError } from '../../common/index.js';

/** Where Redis is and how to log in (ioredis's option names). */
export interface RedisAddress {
  readonly host?: string;
  readonly port?: number;
  /** A unix socket. */
  readonly path?: string;
  readonly db?: number;
  readonly username?: string;
  readonly password?: string;
  readonly tls?: { readonly servername: string };
}

/** A parsed Redis URL: options for ioredis, and the URL as messages may show it. */
export interface RedisTarget {
  readonly options: RedisAddress;
  /** The URL without its password. */
  readonly display: string;
}

/**
 * Parses a Redis URL.
 * @throws DeflowError `E_USAGE_QUEUE_URL` naming `option` and what was expected.
 */
export function parseRedisUrl(value: string, option: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badUrl(option, value, 'it does not parse as a URL');
  }
  const display = describeRedisUrl(url);
  if (url.protocol === 'unix:') {
    const path = decodeURIComponent(url.pathname);
    if (url.host !== '' || !path.startsWith('/')) throw badUrl(option, display, 'a unix socket URL has three slashes and an absolute path: unix:///run/redis.sock');
    return { options: { path, ...database(url.searchParams.get('db'), option, display), ...credentials(url) }, display };
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw badUrl(option, display, `unknown scheme ${url.protocol}`);
  if (url.hostname === '') throw badUrl(option, display, 'no host');
  const port = url.port === '' ? 6379 : Number(url.port);
  const db = url.pathname.replace(/^\/+/, '');
  return {
    options: {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port,
      ...database(db === '' ? null : db, option, display),
      ...credentials(url),
      ...(url.protocol === 'rediss:' ? { tls: { servername: url.hostname } } : {}),
    },
    display,
  };
}

/** The URL with its password masked. */
export function describeRedisUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : new URL(url.href);
  } catch {
    return '(an unparsable URL)';
  }
  if (parsed.password !== '') parsed.password = '***';
  return parsed.href;
}

function database(value: string | null, option: string, display: string): { db?: number } {
  if (value === null) return {};
  const db = Number(value);
  if (!/^\d+$/.test(value) || db > 65535) throw badUrl(option, display, `the database must be a number (redis://host:6379/2), got ${JSON.stringify(value)}`);
  return { db };
}

function credentials(url: URL): { username?: string; password?: string } {
  return {
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
  };
}

function badUrl(option: string, shown: string, why: string): DeflowError {
  return new DeflowError(
    'E_USAGE_QUEUE_URL',
    `${option} ${shown}: expected redis://HOST:PORT[/DB], rediss://HOST:PORT[/DB] or unix:///path/to/redis.sock (${why})`,
    { details: { option } },
  );
}
