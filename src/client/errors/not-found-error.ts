import { ApiError, type ApiErrorInit } from './api-error.js';

/** 404: unknown job or resource. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  constructor(init: ApiErrorInit, options: { cause?: unknown } = {}) {
    super(init, 'E_API_NOT_FOUND', options);
  }
}
