/**
 * Whether a webhook URL's host is local: a loopback or private address (RFC 1918, link-local,
 * IPv6 unique-local), `localhost` or a `*.localhost` name, or a name every address of which is
 * such an address. The `live` profile accepts `http:` webhook URLs to these hosts, as local
 * automation tools (n8n's resume URLs) send them.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { createIpAllowList } from '../protocol/ip-allow.js';

const PRIVATE_RANGES = createIpAllowList([
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
]);

/** A name that does not resolve within this long is not taken as local. */
const LOOKUP_TIMEOUT_MS = 2000;

/** True when `hostname` (a URL's, IPv6 in brackets or not) is loopback or private. */
export async function isPrivateHost(hostname: string): Promise<boolean> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isIP(host) !== 0) return PRIVATE_RANGES.allows(host);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  try {
    const addresses = await withTimeout(lookup(host, { all: true }), LOOKUP_TIMEOUT_MS);
    return addresses.length > 0 && addresses.every((a) => PRIVATE_RANGES.allows(a.address));
  } catch {
    return false;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('lookup timed out')), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
