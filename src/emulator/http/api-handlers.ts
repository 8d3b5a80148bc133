/**
 * What each kind of endpoint answers once a request is admitted: submissions and price
 * twins (validated by the domain layer), job status, models, balance, payments, the calling
 * key and key creation.
 */
import { listPayments } from '../account/account.js';
import type { ApiRequest } from './api-pipeline.js';
import { summariseErrors } from '../requests/error-messages.js';
import { createApiKey } from './key-creation.js';
import { listModels } from '../requests/model-registry.js';
import { paginate, readPageQuery } from '../protocol/paginator.js';
import { enhancePrompt } from '../jobs/prompt-enhancer.js';
import { priceMicros } from '../account/prices.js';
import { balanceBody, modelListBody } from '../config/profile-shapes.js';
import { type ApiResponse, errorResponse, jsonResponse, MESSAGES, validationResponse } from './responses.js';
import type { EmulatorServices } from './services.js';
import type { FieldErrors } from '../types.js';
import { validateRequest } from '../requests/validate-request.js';
import { toUsd } from '../../common/index.js';

/** Answers an admitted /api request. */
export async function answerApiRequest(request: ApiRequest, services: EmulatorServices): Promise<ApiResponse> {
  const { endpoint } = request;
  switch (endpoint.kind) {
    case 'submit':
    case 'price':
      return answerTask(request, services);
    case 'job-status':
      return answerJobStatus(request, services);
    case 'models': {
      const page = listModels(services.models, request.query, absolute(request, services));
      return jsonResponse(200, modelListBody(page, services.config.profile));
    }
    case 'balance':
      return jsonResponse(200, balanceBody(services.account.balanceUsd(), services.config.profile));
    case 'payments': {
      const payments = listPayments(services.config.payments, services.clock.now());
      return jsonResponse(200, paginate(payments, readPageQuery(request.query), absolute(request, services), request.query));
    }
    case 'key':
      return jsonResponse(200, { data: services.account.describeKey(request.key) });
    case 'key-create':
      return createApiKey(
        request.body,
        { keys: services.keys, account: services.account, clock: services.clock, maxActiveKeys: services.config.max_active_keys },
        request.recordSuccess,
      );
  }
}

async function answerTask(request: ApiRequest, services: EmulatorServices): Promise<ApiResponse> {
  const { endpoint, key } = request;
  const result = await validateRequest(endpoint, request.body, services.models, {
    allowHttpWebhooks: services.config.webhooks.allow_http,
    allowPrivateHttpWebhooks: services.config.profile === 'live',
  });
  if (!result.ok) return validationFailure(result.errors, endpoint.v1?.errorsAsArray === true);
  const micros = priceMicros(result.request);
  if (endpoint.kind === 'price') {
    services.stats.count('quotes');
    return jsonResponse(200, { data: { price: toUsd(micros) } });
  }
  const refusal = services.account.checkSpend(key, micros);
  if (refusal === 'insufficient_balance') {
    return validationResponse({ balance: [MESSAGES.insufficientBalance] }, MESSAGES.insufficientBalance, 'insufficient_balance');
  }
  if (refusal === 'key_limit_exceeded') return errorResponse(402, MESSAGES.keyLimitExceeded, { code: 'key_limit_exceeded' });
  if (endpoint.task?.sync) {
    const enhanced = enhancePrompt(result.request);
    services.account.chargeNow(key.id, micros);
    if (endpoint.v1?.sync === 'prompt') return jsonResponse(200, { prompt: enhanced.prompt });
    return jsonResponse(200, { prompt: enhanced.prompt, negative_prompt: enhanced.negative_prompt });
  }
  const job = services.jobs.create(result.request, micros, key.id);
  services.account.reserve(job);
  services.stats.count('submissions');
  return jsonResponse(200, { data: { request_id: job.requestId } });
}

/** 422; the v1 endpoint that lists errors answers `[{ field, messages }]` (docs/deapi-contract.md#errors). */
function validationFailure(errors: FieldErrors, asArray: boolean): ApiResponse {
  const message = summariseErrors(errors);
  if (!asArray) return validationResponse(errors, message);
  return validationResponse(
    Object.entries(errors).map(([field, messages]) => ({ field, messages })),
    message,
  );
}

function answerJobStatus(request: ApiRequest, services: EmulatorServices): ApiResponse {
  const job = request.requestId === undefined ? undefined : services.jobs.get(request.requestId);
  if (!job) return errorResponse(404, MESSAGES.notFound);
  const data = services.jobs.statusData(job);
  services.stats.count('polls');
  return jsonResponse(200, { data });
}

function absolute(request: ApiRequest, services: EmulatorServices): string {
  return `${services.baseUrl()}${request.path}`;
}
