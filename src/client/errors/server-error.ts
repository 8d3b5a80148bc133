import { ApiError, type ApiErrorInit } from './api-error.js';

/** 5xx: the service failed; nothing can be assumed about side effects of a submission. */
export class ServerError extends ApiError {
  override name = 'ServerError';
  constructor(init: ApiErrorInit, options: { cause?: unknown } = {}) {
    super(init, 'E_API_SERVER', options);
  }
}
