import { DeflowError } from '../../common/index.js';

/**
 * A result download or upload stream failed: a body shorter or longer than its
 * `Content-Length`, an HTTP error on the result URL, a size cap exceeded. No partial file is
 * left behind. `url` is redacted (no signed query string).
 */
export class TransferError extends DeflowError {
  override name = 'TransferError';
  readonly url: string;
  readonly status: number | undefined;

  constructor(init: { url: string; message: string; status?: number | undefined; file?: string | undefined }, options: { cause?: unknown } = {}) {
    super('E_TRANSFER', `${init.url}: ${init.message}`, {
      cause: options.cause,
      details: { url: init.url, status: init.status, file: init.file },
    });
    this.url = init.url;
    this.status = init.status;
  }
}
