/**
 * The order every /api request goes through: route (404/405, 410 for a retired one), body size (413), Accept (406),
 * faults, key (401), IP whitelist (403/429), role (403), body, rate limit (429), then the
 * endpoint's handler. 401s never reach the limiter; IP and role refusals are not counted
 * against the account; everything after the limiter carries its headers.
 */
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Endpoint, matchEndpoint, retiredSuccessor } from '../../service/index.js';
import type { ApiKey } from '../account/api-keys.js';
import { roleCovers } from '../account/api-keys.js';
import { BodyTooLargeError, MAX_BODY_BYTES, parseBody } from './body-parser.js';
import { type FaultPlan, NO_FAULTS } from '../config/faults.js';
import { normaliseAddress } from '../protocol/ip-allow.js';
import { formatRateLimitHeaders } from '../limits/rate-limiter.js';
import { chooseBucket, ipRefusalRules } from '../limits/rate-policy.js';
import { type ApiResponse, errorResponse, MESSAGES, methodNotAllowed, retiredRoute, routeNotFound } from './responses.js';
import type { EmulatorServices } from './services.js';
import type { ParsedBody } from '../types.js';

/** An authorised, admitted request, ready for its endpoint's handler. */
export interface ApiRequest {
  readonly endpoint: Endpoint;
  /** The job id of a job-status path. */
  readonly requestId: string | undefined;
  readonly key: ApiKey;
  readonly body: ParsedBody;
  readonly query: URLSearchParams;
  readonly path: string;
  /** Counts a request whose bucket counts successes only (key creation); returns its new headers. */
  readonly recordSuccess: () => Record<string, string>;
}

/** How an /api request ends. */
export interface ApiOutcome {
  /** The answer, or `reset` to drop the connection. */
  readonly response: ApiResponse | 'reset';
  readonly faults: FaultPlan;
  /** The parsed body, whose uploads the caller deletes after answering. */
  readonly body: ParsedBody | null;
}

export type ApiHandler = (request: ApiRequest, services: EmulatorServices) => Promise<ApiResponse>;

const EMPTY_BODY: ParsedBody = { kind: 'empty', values: {}, files: {} };

/** Runs the pipeline for an /api request. */
export async function runApiPipeline(
  req: IncomingMessage,
  path: string,
  query: URLSearchParams,
  services: EmulatorServices,
  handle: ApiHandler,
): Promise<ApiOutcome> {
  const done = (response: ApiResponse | 'reset', faults = NO_FAULTS, body: ParsedBody | null = null): ApiOutcome => ({ response, faults, body });
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  const successor = retiredSuccessor(path);
  if (successor) return done(retiredRoute(path, successor));
  const match = matchEndpoint(method, path);
  if (!match) {
    const allowed = (['GET', 'POST'] as const).filter((m) => matchEndpoint(m, path));
    if (allowed.length === 0) return done(routeNotFound(path));
    return done(methodNotAllowed(req.method ?? 'GET', path, allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]))));
  }
  const declaredLength = Number(req.headers['content-length'] ?? 0);
  if (declaredLength > MAX_BODY_BYTES) return done(errorResponse(413, MESSAGES.tooLarge));
  if (!acceptsJson(req.headers.accept)) return done(errorResponse(406, MESSAGES.notAcceptable));

  const faults = services.faults.planApi();
  if (faults.latencyMs > 0) await sleep(faults.latencyMs);
  if (faults.reset) return done('reset', faults);
  if (faults.error500) return done(errorResponse(500, MESSAGES.serverError), faults);

  const auth = services.keys.authenticate(req.headers.authorization);
  if (!auth.ok) return done(errorResponse(401, MESSAGES.unauthenticated, { code: auth.code }), faults);
  const key = auth.key;

  const address = normaliseAddress(req.socket.remoteAddress ?? '');
  if (!key.allowList.allows(address)) return done(refuseAddress(address, services), faults);
  if (!roleCovers(key, match.endpoint.role)) {
    return done(errorResponse(403, MESSAGES.forbidden, { code: 'insufficient_permissions' }), faults);
  }

  let body = EMPTY_BODY;
  if (method === 'POST') {
    try {
      body = await parseBody(req, services.tempDir);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return done(errorResponse(413, MESSAGES.tooLarge), faults);
      throw error;
    }
  }

  const endpoint = match.endpoint;
  const bucket = chooseBucket(endpoint, namedModel(endpoint, body), services.config.rate_limits, services.models);
  let rateHeaders: Record<string, string> = {};
  if (bucket) {
    const admission = services.limiter.admit(bucket.key, bucket.rules, !bucket.countOnSuccess);
    rateHeaders = admission.allowed
      ? formatRateLimitHeaders(admission, bucket.source)
      : formatRateLimitHeaders(admission, bucket.source, bucket.refusedType, services.config.rate_limits.retry_after_offset_s);
    if (!admission.allowed) {
      return done(errorResponse(429, MESSAGES.tooManyAttempts, { code: 'rate_limited', headers: rateHeaders }), faults, body);
    }
  }
  const recordSuccess = (): Record<string, string> => {
    if (!bucket) return {};
    rateHeaders = formatRateLimitHeaders(services.limiter.record(bucket.key, bucket.rules), bucket.source);
    return rateHeaders;
  };
  const response = await handle({ endpoint, requestId: match.requestId, key, body, query, path, recordSuccess }, services);
  return done({ ...response, headers: { ...rateHeaders, ...response.headers } }, faults, body);
}

/**
 * 403 ip_not_allowed, or 429 ip-not-allowed once the address has been refused
 * `ip_refusals_before_429` times in the current window (counted per address, never the account).
 */
function refuseAddress(address: string, services: EmulatorServices): ApiResponse {
  const admission = services.limiter.admit(`ip:${address}`, ipRefusalRules(services.config.rate_limits));
  if (admission.allowed) return errorResponse(403, MESSAGES.ipNotAllowed, { code: 'ip_not_allowed' });
  const headers = formatRateLimitHeaders(admission, 'static', 'ip-not-allowed', services.config.rate_limits.retry_after_offset_s);
  return errorResponse(429, MESSAGES.tooManyAttempts, { code: 'rate_limited', headers });
}

/** The model slug a body names, for per-model rate overrides. */
function namedModel(endpoint: Endpoint, body: ParsedBody): string | null {
  const field = endpoint.task?.modelField;
  const value = field ? body.values[field] : undefined;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * True when there is no Accept header or it admits JSON (`application/json`,
 * `application/*` or `*\/*` with a non-zero quality). Real clients often send none.
 */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) return false;
    return range === 'application/json' || range === 'application/*' || range === '*/*';
  });
}
