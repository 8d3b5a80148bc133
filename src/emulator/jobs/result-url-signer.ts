/**
 * Pre-signed, expiring result URLs, like the service's S3 links: `expires` (virtual epoch
 * seconds) and an HMAC `signature` over the path and expiry, keyed by a secret made per run.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a result URL stays valid, in virtual seconds. */
export const RESULT_URL_TTL_S = 3600;

export class ResultUrlSigner {
  private readonly key = randomBytes(32);

  /** `…/results/<id>/<filename>?expires=…&signature=…`, valid from virtual time `nowMs`. */
  sign(baseUrl: string, requestId: string, filename: string, nowMs: number): string {
    const expires = Math.floor(nowMs / 1000) + RESULT_URL_TTL_S;
    const path = `/results/${encodeURIComponent(requestId)}/${filename}`;
    return `${baseUrl.replace(/\/+$/, '')}${path}?expires=${expires}&signature=${this.signature(requestId, filename, expires)}`;
  }

  /** True when `expires` is in the future and `signature` matches. */
  verify(requestId: string, filename: string, expires: string | undefined, signature: string | undefined, nowMs: number): boolean {
    if (!expires || !signature || !/^\d+$/.test(expires)) return false;
    if (Number(expires) < Math.floor(nowMs / 1000)) return false;
    const expected = Buffer.from(this.signature(requestId, filename, Number(expires)), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private signature(requestId: string, filename: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${requestId}/${filename}:${expires}`).digest('hex');
  }
}
