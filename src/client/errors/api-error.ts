import { DeflowError, type ErrorCode } from '../../common/index.js';
import type { RateLimitSnapshot } from '../rate-limit-snapshot.js';

/** What every error answered by the service carries. */
export interface ApiErrorInit {
  /** HTTP status (0 when the failure happened before a response, e.g. a governor refusal). */
  readonly status: number;
  /** The service's `code` when it is one the spec publishes; unknown values are dropped (the status stays). */
  readonly serviceCode?: string | undefined;
  /** The service's `message`, already redacted. */
  readonly serviceMessage: string;
  /** 422 field errors, normalised to field → messages (v1 arrays included). */
  readonly errors?: Readonly<Record<string, readonly string[]>> | undefined;
  readonly method: string;
  /** Request path without the query string (never a signed URL). */
  readonly path: string;
  readonly rateLimit?: RateLimitSnapshot | null | undefined;
}

/**
 * An error answer of the service. `code` is deflow's stable `E_API_…` code (one per subclass);
 * `serviceCode` is the service's own `code` (`invalid_key`, `rate_limited`, …) when it is a
 * published one. The message reads `POST /api/v2/audio/speech: 422 The text field is required.`
 */
export class ApiError extends DeflowError {
  override name = 'ApiError';
  readonly status: number;
  readonly serviceCode: string | undefined;
  readonly serviceMessage: string;
  readonly errors: Readonly<Record<string, readonly string[]>>;
  readonly method: string;
  readonly path: string;
  readonly rateLimit: RateLimitSnapshot | null;

  constructor(init: ApiErrorInit, code: ErrorCode = 'E_API', options: { cause?: unknown } = {}) {
    super(code, formatApiMessage(init), {
      cause: options.cause,
      details: { status: init.status, serviceCode: init.serviceCode, method: init.method, path: init.path, errors: init.errors ?? {} },
    });
    this.status = init.status;
    this.serviceCode = init.serviceCode;
    this.serviceMessage = init.serviceMessage;
    this.errors = init.errors ?? {};
    this.method = init.method;
    this.path = init.path;
    this.rateLimit = init.rateLimit ?? null;
  }
}

function formatApiMessage(init: ApiErrorInit): string {
  const text = init.serviceMessage.trim() || '(no message)';
  return `${init.method} ${init.path}: ${init.status} ${text}`;
}
