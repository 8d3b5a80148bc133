import { ApiError, type ApiErrorInit } from './api-error.js';

/** 401: the key is missing, unknown, expired or revoked (`serviceCode` says which). */
export class AuthError extends ApiError {
  override name = 'AuthError';
  constructor(init: ApiErrorInit, options: { cause?: unknown } = {}) {
    super(init, 'E_API_AUTH', options);
  }
}
