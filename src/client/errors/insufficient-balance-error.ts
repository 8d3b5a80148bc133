import { ApiError, type ApiErrorInit } from './api-error.js';

/** The account balance does not cover the job (422 `insufficient_balance` or `errors.balance`). */
export class InsufficientBalanceError extends ApiError {
  override name = 'InsufficientBalanceError';
  constructor(init: ApiErrorInit, options: { cause?: unknown } = {}) {
    super(init, 'E_API_BALANCE', options);
  }
}
