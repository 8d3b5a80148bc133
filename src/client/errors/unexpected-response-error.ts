import { ApiError, type ApiErrorInit } from './api-error.js';

/**
 * A 2xx answer deflow cannot read (not JSON, or missing the field the endpoint promises, such
 * as `data.request_id`), or an error status with no more specific class.
 */
export class UnexpectedResponseError extends ApiError {
  override name = 'UnexpectedResponseError';
  constructor(init: ApiErrorInit, options: { cause?: unknown } = {}) {
    super(init, 'E_API_RESPONSE', options);
  }
}
