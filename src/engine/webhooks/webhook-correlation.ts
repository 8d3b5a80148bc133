/**
 * Which item a webhook delivery is about, even when the submission's answer (its request id)
 * was lost: every submission's `webhook_url` carries a `deflow` query parameter naming the run,
 * the item (its journal name) and the attempt, with an HMAC keyed by the state folder's own
 * key (`<stateDir>/webhook-key`, mode 0600; never the API key). A token whose HMAC does not
 * match is ignored, so nobody can make deflow adopt a job for an item it did not submit.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../common/index.js';

/** The query parameter of a delivery URL that holds the token. */
export const CORRELATION_PARAM = 'deflow';

/** One submission as its token names it. */
export interface Correlation {
  readonly runId: string;
  /** The item's journal name (`<step>/<item key>`). */
  readonly node: string;
  readonly attempt: number;
}

const KEY_FILE = 'webhook-key';
/** 128 bits of HMAC, base64url. */
const MAC_CHARS = 22;

/** The state folder's correlation key, made on first use (32 random bytes, mode 0600). */
export function readCorrelationKey(stateDir: string): Buffer {
  const path = join(stateDir, KEY_FILE);
  try {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url');
    if (key.length >= 32) return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32);
  writeFileAtomic(path, `${key.toString('base64url')}\n`, { mode: 0o600 });
  return key;
}

function mac(key: Buffer, runId: string, node: string, attempt: number): string {
  return createHmac('sha256', key).update(`${runId}\n${node}\n${attempt}`).digest('base64url').slice(0, MAC_CHARS);
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** The token of one submission: `<run>.<node>.<attempt>.<mac>` (run and node base64url). */
export function correlationToken(key: Buffer, c: Correlation): string {
  return `${b64(c.runId)}.${b64(c.node)}.${c.attempt}.${mac(key, c.runId, c.node, c.attempt)}`;
}

/** `base` with the token of `c` in its `deflow` query parameter. */
export function correlatedUrl(base: string, key: Buffer, c: Correlation): string {
  const url = new URL(base);
  url.searchParams.set(CORRELATION_PARAM, correlationToken(key, c));
  return url.toString();
}

/** The submission a token names, or null when it is malformed or its HMAC does not match. */
export function parseCorrelation(key: Buffer, token: string): Correlation | null {
  const parts = token.split('.');
  if (parts.length !== 4 || !/^\d{1,6}$/.test(parts[2]!)) return null;
  const runId = Buffer.from(parts[0]!, 'base64url').toString('utf8');
  const node = Buffer.from(parts[1]!, 'base64url').toString('utf8');
  const attempt = Number(parts[2]);
  if (runId === '' || node === '' || b64(runId) !== parts[0] || b64(node) !== parts[1]) return null;
  const expected = Buffer.from(mac(key, runId, node, attempt));
  const given = Buffer.from(parts[3]!);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { runId, node, attempt };
}

/** The correlation of a delivery's request path (`/hooks?deflow=…`), or null. */
export function correlationOfPath(key: Buffer, path: string | undefined): Correlation | null {
  if (path === undefined) return null;
  const query = path.indexOf('?');
  if (query < 0) return null;
  const token = new URLSearchParams(path.slice(query + 1)).get(CORRELATION_PARAM);
  return token === null ? null : parseCorrelation(key, token);
}
