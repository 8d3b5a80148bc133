import { DeflowError } from '../../common/index.js';

/**
 * A URL deflow refuses to fetch: not `https:` (plain `http:` is allowed for loopback hosts
 * only), a non-HTTP scheme, or too many redirects. `url` is redacted.
 */
export class UnsafeUrlError extends DeflowError {
  override name = 'UnsafeUrlError';
  readonly url: string;

  constructor(url: string, reason: string) {
    super('E_UNSAFE_URL', `refusing to fetch ${url}: ${reason}`, { details: { url, reason } });
    this.url = url;
  }
}
