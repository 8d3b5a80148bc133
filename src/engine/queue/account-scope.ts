/**
 * Which account a Redis key belongs to. Several accounts (or the emulator and the service) may
 * share one Redis: keys, queues and buckets are named under `deflow:<scope>`, where the scope
 * is a digest of the base URL and the API key. The key itself is never stored or shown.
 */
import { createHash } from 'node:crypto';

/** 12 hex digits naming (base URL, API key). */
export function accountScope(baseUrl: string, apiKey: string): string {
  return createHash('sha256').update(`deflow-account\u0000${baseUrl.replace(/\/+$/, '')}\u0000${apiKey}`).digest('hex').slice(0, 12);
}

/** The key prefix of an account's data in Redis. */
export function accountPrefix(scope: string): string {
  return `deflow:${scope}`;
}
