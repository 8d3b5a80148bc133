import type { Clock } from '../common/index.js';
import { isFollowingClock, parseEmulatorClock } from '../common/index.js';
import type { Redactor } from '../common/index.js';
import type { PoolId } from '../service/index.js';
import { createApiError } from './create-api-error.js';
import { NetworkError } from './errors/network-error.js';
import type { HttpTransport, TransportResponse } from './http-transport.js';
import type { InFlightSlots } from './in-flight-slots.js';
import type { Governor, GovernorPermit } from './governor-types.js';
import { type RateLimitSnapshot, readRateLimitSnapshot } from './rate-limit-snapshot.js';
import type { EncodedBody } from './request-body.js';
import { type AttemptOutcome, decideRetry, type RequestKind, type RetryCounters, type RetryOptions } from './retry-policy.js';

/** One logical API call; it may take several attempts. */
export interface ApiCall {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number>> | undefined;
  readonly kind: RequestKind;
  readonly pool: PoolId | null;
  readonly model?: string | undefined;
  /** Builds the body for each attempt (file streams cannot be replayed). */
  readonly body?: (() => Promise<EncodedBody>) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A successful answer and its rate-limit headers. */
export interface ApiAnswer extends TransportResponse {
  readonly rateLimit: RateLimitSnapshot;
}

/** What the executor needs from the client. */
export interface ExecutorParts {
  readonly transport: HttpTransport;
  readonly governor: Governor | null;
  readonly slots: InFlightSlots;
  readonly retry: RetryOptions;
  readonly clock: Clock;
  readonly redact: Redactor;
  readonly log: ((line: string) => void) | undefined;
}

const NO_PERMIT: GovernorPermit = { bucket: null, settle: () => {}, abandon: () => {} };

/**
 * Runs an API call: governor slot, wire slot, send, settle the governor with the answer's
 * headers, then either return a 2xx, or ask the retry policy and sleep (holding nothing)
 * before the next attempt, or throw the typed error.
 */
export async function executeCall(call: ApiCall, parts: ExecutorParts): Promise<ApiAnswer> {
  const { clock, retry } = parts;
  let counters: RetryCounters = { failures: 0, rateLimited: 0 };
  for (let attempt = 1; ; attempt++) {
    const permit = parts.governor
      ? await parts.governor.acquire({ pool: call.pool, model: call.model, method: call.method, path: call.path, signal: call.signal })
      : NO_PERMIT;
    let outcome: AttemptOutcome;
    let answer: ApiAnswer | undefined;
    try {
      answer = await sendOnce(call, parts, permit, attempt);
      outcome = { type: 'response', status: answer.status, rateLimit: answer.rateLimit };
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error;
      outcome = { type: 'network', error };
    }
    if (answer && answer.status >= 200 && answer.status < 300) return answer;
    const decision = decideRetry(outcome, call.kind, counters, retry, clock.now());
    if (!decision.retry) {
      if (outcome.type === 'network') throw outcome.error;
      throw createApiError({ ...answer!, method: call.method, path: call.path }, parts.redact, clock.now());
    }
    counters = { ...counters, [decision.counter]: counters[decision.counter] + 1 };
    log(parts, `${call.method} ${call.path}: ${decision.reason}; retrying in ${formatMs(decision.delayMs)}`);
    await clock.sleep(decision.delayMs, call.signal);
  }
}

async function sendOnce(call: ApiCall, parts: ExecutorParts, permit: GovernorPermit, attempt: number): Promise<ApiAnswer> {
  let slotHeld = false;
  try {
    await parts.slots.acquire(call.signal);
    slotHeld = true;
    const body = call.body ? await call.body() : undefined;
    const started = parts.clock.now();
    const response = await parts.transport.send({ method: call.method, path: call.path, query: call.query, body, signal: call.signal });
    parts.slots.release();
    slotHeld = false;
    followServiceClock(parts.clock, response.headers);
    const rateLimit = readRateLimitSnapshot(response.headers);
    permit.settle({ status: response.status, rateLimit });
    log(parts, describeAnswer(call, response.status, rateLimit, parts.clock.now() - started, attempt, permit.bucket));
    return { ...response, rateLimit };
  } catch (error) {
    if (slotHeld) parts.slots.release();
    permit.abandon(error instanceof NetworkError ? error.reachedService : false);
    if (error instanceof NetworkError) log(parts, `${call.method} ${call.path}: ${error.message}`);
    throw error;
  }
}

/**
 * A deflow emulator's answers carry its clock (`X-Emulator-Clock`); a following clock takes
 * the reading before the rate-limit headers, which are on that clock, are read. deAPI sends
 * none, and a clock that does not follow (the system's, a test's) ignores it.
 */
function followServiceClock(clock: Clock, headers: TransportResponse['headers']): void {
  if (!isFollowingClock(clock)) return;
  const reading = parseEmulatorClock(headers['x-emulator-clock']);
  if (reading) clock.follow(reading);
}

function describeAnswer(call: ApiCall, status: number, rateLimit: RateLimitSnapshot, ms: number, attempt: number, bucket: string | null): string {
  const left = rateLimit.limit !== undefined && rateLimit.remaining !== undefined ? ` [${bucket ?? call.pool}: ${rateLimit.remaining}/${rateLimit.limit} left]` : '';
  const retry = attempt > 1 ? ` (attempt ${attempt})` : '';
  return `${call.method} ${call.path} → ${status} in ${formatMs(ms)}${left}${retry}`;
}

function log(parts: ExecutorParts, line: string): void {
  parts.log?.(parts.redact(line));
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
