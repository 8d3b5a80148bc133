import { ApiError, type ApiErrorInit } from './api-error.js';

/** 422: the request was refused; `errors` maps each field to its messages. */
export class ValidationError extends ApiError {
  override name = 'ValidationError';
  constructor(init: ApiErrorInit, options: { cause?: unknown } = {}) {
    super(init, 'E_API_VALIDATION', options);
  }
}
