import { ApiError, type ApiErrorInit } from './api-error.js';

/** 402: the key's spend limit is used up until it resets. */
export class KeyLimitError extends ApiError {
  override name = 'KeyLimitError';
  constructor(init: ApiErrorInit, options: { cause?: unknown } = {}) {
    super(init, 'E_API_KEY_LIMIT', options);
  }
}
