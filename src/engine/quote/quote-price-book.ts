/**
 * Every price answer of one quote, by request key: from the quote cache, from an identical
 * request already sent, or from the price twin. Identical requests are sent once (in flight
 * too), sends are capped by the price-request budget, and several run at once: the client's
 * rate governor paces the quote pool, this only bounds how many sockets wait on it.
 */
import pLimit from 'p-limit';
import { type ErrorCode, isDeflowError } from '../../common/index.js';
import type { TaskId } from '../../service/index.js';
import type { QuoteCache } from './quote-cache.js';

/** Where prices come from: the client (`DeapiClient`) satisfies it. */
export interface PriceSource {
  /** The price twin's answer in USD for `fields` (files as `{ path }`). */
  price(task: TaskId, fields: Readonly<Record<string, unknown>>, options?: { signal?: AbortSignal }): Promise<number>;
  /** The account balance in USD. */
  balance(options?: { signal?: AbortSignal }): Promise<number>;
}

/** A request ready to send: its identity, the fields to send, and the digested fields to show. */
export interface PriceRequest {
  readonly key: string;
  readonly task: TaskId;
  readonly fields: Readonly<Record<string, unknown>>;
  /** `fields` with files as `{ sha256 }` (what the cache keeps). */
  readonly shown: Readonly<Record<string, unknown>>;
}

export type PriceAnswer =
  | { readonly ok: true; readonly price: number; readonly origin: 'request' | 'cache'; readonly ageMs: number }
  | {
      readonly ok: false;
      readonly reason: string;
      /** The service's message when it refused the parameters themselves (422): the submission would be refused too. */
      readonly refused?: string;
    };

export interface PriceBookOptions {
  readonly source: PriceSource;
  readonly cache?: QuoteCache | undefined;
  /** Most price requests to send. */
  readonly maxRequests: number;
  /** Requests waiting on the governor at once. */
  readonly concurrency: number;
  readonly signal?: AbortSignal | undefined;
}

/** Error codes that refuse one request's parameters rather than the whole quote. */
const PER_REQUEST_FAILURES = /^E_API_(VALIDATION|NOT_FOUND)$|^E_INPUT_FILE|^E_UNSAFE_URL$/;

/** The service's own words of an API error (its `message`), else the whole message. */
function serviceMessage(error: Error): string {
  const own = (error as { serviceMessage?: unknown }).serviceMessage;
  return typeof own === 'string' && own !== '' ? own : error.message;
}

/** Why prices could not be obtained at all. */
export interface Unavailable {
  readonly code: ErrorCode;
  readonly message: string;
}

/** The cause of a failure that stops every price request, in words. */
function describeUnavailable(code: ErrorCode, message: string): string {
  if (code === 'E_API_DAILY_LIMIT') return `the price-request pool is exhausted for the day (${message})`;
  if (code === 'E_API_RATE_LIMITED') return `the price-request pool is exhausted (${message})`;
  if (code === 'E_API_AUTH' || code === 'E_API_PERMISSION') return `the service refused the key (${message})`;
  if (code === 'E_NETWORK' || code === 'E_TRANSFER' || code === 'E_TRUNCATED') return `the service could not be reached (${message})`;
  return `the service failed to answer price requests (${message})`;
}

export class PriceBook {
  readonly #options: PriceBookOptions;
  readonly #answers = new Map<string, Promise<PriceAnswer>>();
  readonly #settled = new Map<string, PriceAnswer>();
  readonly #limit;
  #sent = 0;
  #cacheHits = 0;
  #stopped: string | null = null;
  #unavailable: Unavailable | null = null;

  constructor(options: PriceBookOptions) {
    this.#options = options;
    this.#limit = pLimit(Math.max(1, options.concurrency));
  }

  /** Price requests sent so far. */
  get sent(): number {
    return this.#sent;
  }

  /** Distinct requests answered from the quote cache. */
  get cacheHits(): number {
    return this.#cacheHits;
  }

  /** Set once a failure stopped every price request (unreachable service, refused key, exhausted pool). */
  get unavailable(): Unavailable | null {
    return this.#unavailable;
  }

  /** The settled answer for `key` (including a cache hit), without ever sending a request. */
  peek(key: string): PriceAnswer | undefined {
    const settled = this.#settled.get(key);
    if (settled || this.#answers.has(key)) return settled;
    return this.#fromCache(key);
  }

  #fromCache(key: string): PriceAnswer | undefined {
    const cached = this.#options.cache?.get(key);
    if (!cached) return undefined;
    this.#cacheHits++;
    const answer: PriceAnswer = { ok: true, price: cached.price, origin: 'cache', ageMs: cached.ageMs };
    this.#settled.set(key, answer);
    this.#answers.set(key, Promise.resolve(answer));
    return answer;
  }

  /** Requests that may still be sent. */
  get remaining(): number {
    return this.#stopped ? 0 : Math.max(0, this.#options.maxRequests - this.#sent);
  }

  /** The answer for `request`: cached, shared with an identical request, or sent now. */
  price(request: PriceRequest): Promise<PriceAnswer> {
    const known = this.#answers.get(request.key);
    if (known !== undefined) return known;
    const cached = this.#fromCache(request.key);
    if (cached) return Promise.resolve(cached);
    if (this.#stopped) {
      const refusal: PriceAnswer = { ok: false, reason: this.#stopped };
      this.#settled.set(request.key, refusal);
      return Promise.resolve(refusal);
    }
    if (this.remaining <= 0) {
      const refusal: PriceAnswer = { ok: false, reason: `the price-request budget (${this.#options.maxRequests}, --max-price-requests) is spent` };
      // Settled for the report only: a request admitted later still replaces it.
      this.#settled.set(request.key, refusal);
      return Promise.resolve(refusal);
    }
    // Counted when admitted, so the budget holds while requests queue behind the governor.
    this.#sent++;
    const pending = this.#limit(() => this.#send(request)).then((answer) => {
      this.#settled.set(request.key, answer);
      return answer;
    });
    this.#answers.set(request.key, pending);
    return pending;
  }

  async #send(request: PriceRequest): Promise<PriceAnswer> {
    if (this.#stopped) {
      this.#sent--;
      return { ok: false, reason: this.#stopped };
    }
    try {
      const signal = this.#options.signal;
      const price = await this.#options.source.price(request.task, request.fields, signal ? { signal } : {});
      this.#options.cache?.set(request.key, { task: request.task, params: request.shown, price });
      return { ok: true, price, origin: 'request', ageMs: 0 };
    } catch (error) {
      if (!isDeflowError(error)) throw error;
      if (error.code === 'E_API_VALIDATION') {
        const message = serviceMessage(error);
        return { ok: false, reason: `the service refuses these parameters (422 from the price twin: ${message}); the submission would be refused too`, refused: message };
      }
      if (PER_REQUEST_FAILURES.test(error.code)) return { ok: false, reason: `the price twin refused it: ${error.message}` };
      if (error.code === 'E_INTERRUPTED' || this.#options.signal?.aborted) throw error;
      // Anything else stops the quote: its prices cannot be obtained, and guessing is not quoting.
      const message = describeUnavailable(error.code, error.message);
      this.#unavailable ??= { code: error.code, message };
      this.#stopped ??= `no price: ${message}`;
      return { ok: false, reason: this.#stopped };
    }
  }
}
