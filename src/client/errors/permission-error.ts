import { ApiError, type ApiErrorInit } from './api-error.js';

/** 403: the key's role does not cover the endpoint, or the calling address is not allowed. */
export class PermissionError extends ApiError {
  override name = 'PermissionError';
  constructor(init: ApiErrorInit, options: { cause?: unknown } = {}) {
    super(init, 'E_API_PERMISSION', options);
  }
}
