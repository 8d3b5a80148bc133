import { DeflowError } from '../../common/index.js';

/**
 * The request got no HTTP answer (refused connection, DNS failure, reset, timeout, cut-short
 * body). `reachedService` says whether the service may have seen it: `false` only when the
 * connection was never made, which is the one case where a submission is safe to resend.
 */
export class NetworkError extends DeflowError {
  override name = 'NetworkError';
  readonly method: string;
  readonly path: string;
  readonly reachedService: boolean;
  /** The low-level error code (`ECONNREFUSED`, `UND_ERR_SOCKET`, …), when there is one. */
  readonly networkCode: string | undefined;

  constructor(
    init: { method: string; path: string; reachedService: boolean; networkCode?: string | undefined; reason: string },
    options: { cause?: unknown } = {},
  ) {
    super('E_NETWORK', `${init.method} ${init.path}: no answer from the service (${init.reason})`, {
      cause: options.cause,
      details: { method: init.method, path: init.path, reachedService: init.reachedService, networkCode: init.networkCode },
    });
    this.method = init.method;
    this.path = init.path;
    this.reachedService = init.reachedService;
    this.networkCode = init.networkCode;
  }
}
