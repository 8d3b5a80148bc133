import type { Clock } from '../common/index.js';
import { DeflowError } from '../common/index.js';
import { createRedactor, type Redactor } from '../common/index.js';
import { KEY_CREATION_POOL, JOBS_STATUS_POOL, QUOTE_POOL } from '../service/index.js';
import type { ModelInfo } from '../service/index.js';
import { findTask } from '../service/index.js';
import type { BodyKind, PoolId, TaskSpec, V1Endpoint } from '../service/index.js';
import type { ApiKeyInfo, PaymentPage } from './account-types.js';
import { type DeapiClientOptions, type ResolvedClientOptions, resolveClientOptions } from './client-options.js';
import { UnexpectedResponseError } from './errors/unexpected-response-error.js';
import type { RequestFields } from './field-values.js';
import { HttpTransport } from './http-transport.js';
import { InFlightSlots } from './in-flight-slots.js';
import type { Governor } from './governor-types.js';
import { encodeBody } from './request-body.js';
import { type ApiAnswer, type ApiCall, type ExecutorParts, executeCall } from './request-executor.js';
import type { RequestKind } from './retry-policy.js';
import {
  type JobStatus,
  readBalance,
  readJobStatus,
  readModelPage,
  readPaymentPage,
  readPrice,
  readRequestId,
  unwrapData,
} from './tolerant-read.js';
import { createResultSource, downloadResult, type OpenedResult, openResult, type TransferOptions } from './transfers.js';

/** Options of a submission or a quote. */
export interface SubmitOptions {
  /** @default 'v2' */
  readonly version?: 'v1' | 'v2';
  /** Which v1 path, for tasks with several (transcription: `/api/v1/client/audiofile2txt`, …). @default the first */
  readonly v1Path?: string;
  readonly signal?: AbortSignal;
}

/** A submission's answer: a job to poll, or the answer itself for synchronous tasks (prompt enhancement). */
export type SubmitResult =
  | { readonly kind: 'job'; readonly requestId: string }
  | { readonly kind: 'sync'; readonly result: Readonly<Record<string, unknown>> };

/** A `signal` for calls that take nothing else. */
export interface CallOptions {
  readonly signal?: AbortSignal;
}

const MAX_MODEL_PAGES = 200;

/**
 * The deAPI client: typed calls for every task of the catalogue (v2, and v1 on request),
 * job status, models, account and keys; one retry policy; a rate governor that learns each
 * pool's limits from the headers; streamed uploads and downloads. Nothing it throws, logs or
 * returns contains the API key.
 */
export class DeapiClient {
  readonly baseUrl: string;
  readonly clock: Clock;
  /** The governor pacing this client (shared when passed in the options), or null when off. */
  readonly governor: Governor | null;
  /** Masks the key and other secrets; use it on anything derived from requests before printing. */
  readonly redact: Redactor;
  private readonly options: ResolvedClientOptions;
  private readonly transport: HttpTransport;
  private readonly parts: ExecutorParts;

  constructor(options: DeapiClientOptions) {
    this.options = resolveClientOptions(options);
    this.baseUrl = this.options.baseUrl;
    this.clock = this.options.clock;
    this.governor = this.options.governor;
    this.redact = createRedactor([this.options.apiKey, ...this.options.secrets]);
    this.transport = new HttpTransport({ ...this.options, redact: this.redact });
    this.parts = {
      transport: this.transport,
      governor: this.governor,
      slots: new InFlightSlots(this.options.maxInFlight),
      retry: this.options.retry,
      clock: this.clock,
      redact: this.redact,
      log: this.options.log,
    };
  }

  /** Submits a job of `taskId` (or runs a synchronous task) with the service's own field names. */
  async submit(taskId: string, fields: RequestFields, options: SubmitOptions = {}): Promise<SubmitResult> {
    const task = requireTask(taskId);
    const route = chooseRoute(task, options, 'submit');
    const answer = await this.call(route.path, 'submit', route.pool, fields, route.body, modelOf(task, fields), options.signal);
    if (task.sync) return { kind: 'sync', result: unwrapData(answer.body) ?? {} };
    const requestId = readRequestId(answer.body);
    if (requestId === undefined) throw this.unexpected(answer, 'POST', route.path, 'expected data.request_id');
    return { kind: 'job', requestId };
  }

  /** Quotes a job of `taskId` on its price twin; fields the twin ignores are not sent. */
  async price(taskId: string, fields: RequestFields, options: SubmitOptions = {}): Promise<number> {
    const task = requireTask(taskId);
    const route = chooseRoute(task, options, 'price');
    const omitted = new Set(task.priceOmits ?? []);
    const sent = Object.fromEntries(Object.entries(fields).filter(([name]) => !omitted.has(name)));
    const answer = await this.call(route.path, 'quote', QUOTE_POOL, sent, route.body, modelOf(task, fields), options.signal);
    const price = readPrice(answer.body);
    if (price === undefined) throw this.unexpected(answer, 'POST', route.path, 'expected data.price');
    return price;
  }

  /** The status of a job (v2 `/api/v2/jobs/{id}` or v1 `request-status/{id}`; one job namespace). */
  async jobStatus(requestId: string, options: { version?: 'v1' | 'v2'; signal?: AbortSignal } = {}): Promise<JobStatus> {
    const id = encodeURIComponent(requestId);
    const path = options.version === 'v1' ? `/api/v1/client/request-status/${id}` : `/api/v2/jobs/${id}`;
    const answer = await this.get(path, 'read', JOBS_STATUS_POOL, undefined, options.signal);
    const status = readJobStatus(answer.body);
    if (!status) throw this.unexpected(answer, 'GET', path, 'expected data.status');
    return status;
  }

  /** Every model, all pages (following `meta.last_page`); `task` keeps the models that serve it. */
  async listModels(options: { task?: string; signal?: AbortSignal } = {}): Promise<ModelInfo[]> {
    const types = options.task === undefined ? undefined : requireTask(options.task).inferenceTypes;
    const models: ModelInfo[] = [];
    for (let page = 1; page <= MAX_MODEL_PAGES; page++) {
      const answer = await this.get('/api/v2/models', 'read', null, { limit: 50, page }, options.signal);
      const read = readModelPage(answer.body);
      if (!read) throw this.unexpected(answer, 'GET', '/api/v2/models', 'expected a data list of models');
      models.push(...read.models);
      if (read.models.length === 0 || page >= read.lastPage) break;
    }
    return types ? models.filter((m) => m.inference_types.some((t) => types.includes(t))) : models;
  }

  /** The account balance in USD. */
  async balance(options: CallOptions = {}): Promise<{ balance: number }> {
    const answer = await this.get('/api/v2/account/balance', 'read', null, undefined, options.signal);
    const balance = readBalance(answer.body);
    if (balance === undefined) throw this.unexpected(answer, 'GET', '/api/v2/account/balance', 'expected balance');
    return { balance };
  }

  /** One page of the account's payments, newest first (ADMIN key). */
  async payments(options: { limit?: number; page?: number; signal?: AbortSignal } = {}): Promise<PaymentPage> {
    const query = { limit: options.limit ?? 50, page: options.page ?? 1 };
    const answer = await this.get('/api/v2/account/payments', 'read', 'account', query, options.signal);
    const page = readPaymentPage(answer.body);
    if (!page) throw this.unexpected(answer, 'GET', '/api/v2/account/payments', 'expected a data list of payments');
    return page;
  }

  /** The calling key (masked `preview`; the secret is never returned). */
  async key(options: CallOptions = {}): Promise<ApiKeyInfo> {
    const answer = await this.get('/api/v2/key', 'read', 'account', undefined, options.signal);
    const data = unwrapData(answer.body);
    if (!data || data.id === undefined) throw this.unexpected(answer, 'GET', '/api/v2/key', 'expected data.id');
    return data as ApiKeyInfo;
  }

  /** Creates an API key (ADMIN key; hourly cap). The body is not published; it is sent as given. */
  async createKey(body: RequestFields, options: CallOptions = {}): Promise<Record<string, unknown>> {
    const answer = await this.call('/api/v2/keys', 'submit', KEY_CREATION_POOL, body, 'json', undefined, options.signal);
    return unwrapData(answer.body) ?? {};
  }

  /** Opens a result URL as a stream (checked origin, scheme, redirects and length). */
  openResult(url: string, options: TransferOptions = {}): Promise<OpenedResult> {
    return openResult(url, this.transferContext(), options);
  }

  /** Downloads a result to `destination` with common's atomic writer; no file is left on failure. */
  downloadResult(url: string, destination: string, options: TransferOptions = {}) {
    return downloadResult(url, destination, this.transferContext(), options);
  }

  /** A result as an upload field of the next job, streamed (and re-opened if the upload is retried). */
  resultSource(url: string, options: TransferOptions = {}) {
    return createResultSource(url, this.transferContext(), options);
  }

  /** Closes the client's keep-alive sockets. */
  close(): Promise<void> {
    return this.transport.close();
  }

  private call(
    path: string,
    kind: RequestKind,
    pool: PoolId | null,
    fields: RequestFields,
    body: BodyKind,
    model: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ApiAnswer> {
    const call: ApiCall = { method: 'POST', path, kind, pool, model, body: () => encodeBody(body, fields), signal };
    return executeCall(call, this.parts);
  }

  private get(
    path: string,
    kind: RequestKind,
    pool: PoolId | null,
    query: Record<string, string | number> | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ApiAnswer> {
    return executeCall({ method: 'GET', path, kind, pool, query, signal }, this.parts);
  }

  private unexpected(answer: ApiAnswer, method: string, path: string, expected: string): UnexpectedResponseError {
    return new UnexpectedResponseError({
      status: answer.status,
      serviceMessage: `unexpected answer: ${expected}`,
      method,
      path,
      rateLimit: answer.rateLimit,
    });
  }

  private transferContext() {
    return {
      baseUrl: this.baseUrl,
      apiKey: this.options.apiKey,
      dispatcher: this.transport.dispatcher,
      userAgent: this.options.userAgent,
      clock: this.clock,
      limits: this.options.transfer,
    };
  }
}

function requireTask(taskId: string): TaskSpec {
  const task = findTask(taskId);
  if (!task) throw new DeflowError('E_USAGE_TASK', `task ${JSON.stringify(taskId)}: expected a task id such as image.generate`);
  return task;
}

function chooseRoute(task: TaskSpec, options: SubmitOptions, kind: 'submit' | 'price'): { path: string; body: BodyKind; pool: PoolId } {
  if (options.version !== 'v1') return { path: kind === 'submit' ? task.path : task.pricePath, body: task.body, pool: task.pool };
  const v1: V1Endpoint | undefined = options.v1Path ? task.v1.find((e) => e.path === options.v1Path) : task.v1[0];
  if (!v1) {
    const known = task.v1.map((e) => e.path).join(', ') || 'none';
    throw new DeflowError('E_USAGE_V1', `${task.id}: no v1 endpoint ${options.v1Path ?? ''} (v1 paths: ${known})`.replace('  ', ' '));
  }
  const path = kind === 'submit' ? v1.path : v1.pricePath;
  if (path === null) throw new DeflowError('E_USAGE_V1', `${v1.path}: this v1 endpoint has no price twin`);
  return { path, body: v1.body ?? task.body, pool: task.pool };
}

function modelOf(task: TaskSpec, fields: RequestFields): string | undefined {
  const value = task.modelField ? fields[task.modelField] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
