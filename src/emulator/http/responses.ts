/**
 * Response values of the emulator and the default error envelope (docs/deapi-contract.md#errors):
 * `{ message, errors, statusCode, data, code? }`, `errors` an object keyed by field on 422 and
 * an empty array otherwise; `code` only where the spec publishes one.
 */
import type { FieldErrors } from '../types.js';

/** What a handler answers; the server adds rate-limit headers and writes it. */
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Error messages the emulator answers with (Laravel wording where the public docs quote it). */
export const MESSAGES = {
  unauthenticated: 'Unauthenticated.',
  forbidden: 'This action is unauthorized.',
  ipNotAllowed: 'Your IP address is not allowed to use this API key.',
  tooManyAttempts: 'Too Many Attempts.',
  notFound: 'No query results for the requested resource.',
  notAcceptable: 'The Accept header must be application/json.',
  tooLarge: 'The request body is larger than the 75 MB limit.',
  serverError: 'Server Error',
  insufficientBalance: 'Insufficient balance.',
  keyLimitExceeded: 'The spend limit of this API key has been reached.',
} as const;

/** A JSON answer. */
export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>): ApiResponse {
  return headers ? { status, body, headers } : { status, body };
}

/** An error answer in the default envelope. */
export function errorResponse(
  status: number,
  message: string,
  options: { code?: string; errors?: FieldErrors | readonly unknown[]; headers?: Record<string, string> } = {},
): ApiResponse {
  const body: Record<string, unknown> = {
    message,
    errors: options.errors ?? [],
    statusCode: status,
    data: {},
  };
  if (options.code !== undefined) body.code = options.code;
  return jsonResponse(status, body, options.headers);
}

/** 422 with field errors; `message` summarises them. */
export function validationResponse(errors: FieldErrors | readonly unknown[], message: string, code?: string): ApiResponse {
  return errorResponse(422, message, code === undefined ? { errors } : { errors, code });
}

/** 404 for a path no route serves (Laravel wording: path without its leading slash). */
export function routeNotFound(path: string): ApiResponse {
  return errorResponse(404, `The route ${path.replace(/^\/+/, '')} could not be found.`);
}

/**
 * 410 Gone for a retired route, in the error envelope, with `Deprecation: true` and a `Link`
 * to the endpoint that replaced it (public docs: the v1 prompt boosters).
 */
export function retiredRoute(path: string, successor: string): ApiResponse {
  const route = path.replace(/^\/+/, '');
  return errorResponse(410, `The route ${route} has been retired. Use POST ${successor} instead.`, {
    headers: { Deprecation: 'true', Link: `<${successor}>; rel="successor-version"` },
  });
}

/** 405 for a known path asked with the wrong method. */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): ApiResponse {
  const route = path.replace(/^\/+/, '');
  return errorResponse(405, `The ${method} method is not supported for route ${route}. Supported methods: ${allowed.join(', ')}.`, {
    headers: { Allow: allowed.join(', ') },
  });
}
