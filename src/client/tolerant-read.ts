/**
 * Readers for answers whose shape the spec and the public docs disagree on
 * (docs/deapi-contract.md#where-the-sources-disagree): each accepts every published form and returns one normalised shape.
 * They never throw; a reader that finds nothing returns `undefined` and the caller decides.
 */
import { isKnownErrorCode, TERMINAL_JOB_STATUSES } from '../service/index.js';
import type { JobErrorCode, ModelInfo } from '../service/index.js';
import type { PaymentPage } from './account-types.js';

type Json = Record<string, unknown>;

/** A job's status, normalised (v1 and v2, string or number `progress`). */
export interface JobStatus {
  /** `pending`, `processing`, `in_progress`, `done`, `error`, or another value kept as sent. */
  readonly status: string;
  /** 0-100, or null when absent. */
  readonly progress: number | null;
  readonly resultUrl: string | null;
  /** Inline result (`return_result_in_response`), e.g. a transcript or a serialized JSON string. */
  readonly result: string | null;
  readonly preview: unknown;
  readonly metadata: Record<string, unknown> | null;
  /** Present when `status` is `error`. */
  readonly error: JobFailure | null;
  /** The whole `data` object as sent, for fields deflow does not model. */
  readonly raw: Record<string, unknown>;
}

/** Why an accepted job failed. */
export interface JobFailure {
  readonly code: JobErrorCode | null;
  readonly message: string | null;
  readonly reason: string | null;
  readonly retryable: boolean | null;
  readonly refunded: boolean | null;
}

/** True for `done` and `error`, the statuses polling stops at. */
export function isTerminalStatus(status: string): boolean {
  return (TERMINAL_JOB_STATUSES as readonly string[]).includes(status);
}

/** `data` when the body is an envelope, else the body itself. */
export function unwrapData(body: unknown): Json | undefined {
  if (!isObject(body)) return undefined;
  return isObject(body.data) ? body.data : body;
}

/** 422 `errors` as field → messages: an object keyed by field, or a v1 array of `{ field, messages }`. */
export function readFieldErrors(errors: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (field: string, messages: unknown): void => {
    const list = (Array.isArray(messages) ? messages : [messages]).filter((m) => m !== null && m !== undefined).map(String);
    if (list.length > 0) out[field] = [...(out[field] ?? []), ...list];
  };
  if (Array.isArray(errors)) {
    for (const entry of errors) {
      if (isObject(entry) && typeof entry.field === 'string') add(entry.field, entry.messages ?? entry.message);
      else if (typeof entry === 'string') add('_', entry);
    }
  } else if (isObject(errors)) {
    for (const [field, messages] of Object.entries(errors)) add(field, messages);
  }
  return out;
}

/** The service's `code`, when it is one the spec publishes (the list grows: unknown → undefined). */
export function readServiceCode(body: unknown): string | undefined {
  return isObject(body) && isKnownErrorCode(body.code) ? body.code : undefined;
}

/** The `message` of an error body, or ''. */
export function readMessage(body: unknown): string {
  if (isObject(body) && typeof body.message === 'string') return body.message;
  return typeof body === 'string' ? body.slice(0, 300) : '';
}

/** `data.request_id` (or a top-level `request_id`). */
export function readRequestId(body: unknown): string | undefined {
  const id = unwrapData(body)?.request_id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** `data.price` (or a top-level `price`), numeric strings accepted. */
export function readPrice(body: unknown): number | undefined {
  return toNumber(unwrapData(body)?.price);
}

/** `balance` at the top level (spec) or under `data` (OpenAPI), numeric strings accepted. */
export function readBalance(body: unknown): number | undefined {
  if (!isObject(body)) return undefined;
  return toNumber(body.balance) ?? (isObject(body.data) ? toNumber(body.data.balance) : undefined);
}

/** A job-status answer (`{ data: {...} }`, or the fields at the top level). */
export function readJobStatus(body: unknown): JobStatus | undefined {
  const data = unwrapData(body);
  if (!data || typeof data.status !== 'string') return undefined;
  const failed = data.status === 'error';
  return {
    status: data.status,
    progress: toNumber(data.progress) ?? null,
    resultUrl: typeof data.result_url === 'string' && data.result_url !== '' ? data.result_url : null,
    result: typeof data.result === 'string' ? data.result : data.result == null ? null : JSON.stringify(data.result),
    preview: data.preview ?? null,
    metadata: isObject(data.metadata) ? data.metadata : null,
    error: failed || data.error_code != null ? readFailure(data) : null,
    raw: data,
  };
}

function readFailure(data: Json): JobFailure {
  const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  return {
    code: str(data.error_code),
    message: str(data.error_message),
    reason: str(data.error_reason),
    retryable: toBoolean(data.retryable) ?? null,
    refunded: toBoolean(data.refunded) ?? null,
  };
}

/** One page of the model list: `data[]` at the top level or `data.data[]`; `meta` at the top level or under `data`. */
export function readModelPage(body: unknown): { models: ModelInfo[]; currentPage: number; lastPage: number } | undefined {
  if (!isObject(body)) return undefined;
  const inner = isObject(body.data) ? body.data : undefined;
  const list = Array.isArray(body.data) ? body.data : Array.isArray(inner?.data) ? inner.data : undefined;
  if (!list) return undefined;
  const meta = isObject(body.meta) ? body.meta : isObject(inner?.meta) ? inner.meta : {};
  const currentPage = toNumber(meta.current_page) ?? 1;
  return {
    models: list.filter(isObject).map(readModel).filter((m): m is ModelInfo => m !== undefined),
    currentPage,
    lastPage: toNumber(meta.last_page) ?? currentPage,
  };
}

/**
 * One model item: `inference_types` as an array or an object (keyed by type, or a PHP
 * array serialised as `{"0":"txt2img"}`), `info` possibly `[]`, numeric strings in
 * `limits`/`defaults`, `"0"`/`"1"` in `features`.
 */
export function readModel(raw: Json): ModelInfo | undefined {
  if (typeof raw.slug !== 'string') return undefined;
  const info = isObject(raw.info) ? raw.info : {};
  const model: { -readonly [K in keyof ModelInfo]: ModelInfo[K] } = {
    name: typeof raw.name === 'string' ? raw.name : raw.slug,
    slug: raw.slug,
    inference_types: readInferenceTypes(raw.inference_types),
    info: {
      limits: mapValues(info.limits, readLimitValue),
      features: mapValues(info.features, (v) => toBoolean(v)),
      defaults: mapValues(info.defaults, (v) => (typeof v === 'number' || typeof v === 'string' ? (toNumber(v) ?? v) : undefined)),
    },
  };
  if (Array.isArray(raw.tags)) model.tags = raw.tags.filter((t): t is string => typeof t === 'string');
  if (raw.status === 'standard_model' || raw.status === 'test_model') model.status = raw.status;
  if (Array.isArray(raw.languages)) model.languages = raw.languages as NonNullable<ModelInfo['languages']>;
  return model;
}

function readInferenceTypes(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (!isObject(value)) return typeof value === 'string' ? [value] : [];
  const entries = Object.entries(value);
  const listLike = entries.length > 0 && entries.every(([k, v]) => /^\d+$/.test(k) && typeof v === 'string');
  return listLike ? entries.map(([, v]) => v as string) : entries.filter(([, v]) => v !== false && v !== null).map(([k]) => k);
}

function readLimitValue(value: unknown): number | string | (string | number)[] | undefined {
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string' || typeof v === 'number').map((v) => toNumber(v) ?? v);
  if (typeof value === 'number' || typeof value === 'string') return toNumber(value) ?? value;
  return undefined;
}

function mapValues<T>(value: unknown, read: (v: unknown) => T | undefined): Record<string, T> {
  const out: Record<string, T> = {};
  if (!isObject(value)) return out; // `[]` from PHP means "nothing"
  for (const [key, v] of Object.entries(value)) {
    const read_ = read(v);
    if (read_ !== undefined) out[key] = read_;
  }
  return out;
}

/** A number, or a string that is exactly a number (`"4"`, `"45.50"`). */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

/** A boolean from `true`/`false`, `1`/`0`, `"1"`/`"0"`, `"true"`/`"false"`. */
export function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  return undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A page of payments; numeric strings in `amount` and `meta` accepted, `meta` defaulted from the list. */
export function readPaymentPage(body: unknown): PaymentPage | undefined {
  if (!isObject(body) || !Array.isArray(body.data)) return undefined;
  const data = body.data.filter(isObject).map((p) => ({
    ...p,
    id: toNumber(p.id) ?? 0,
    amount: toNumber(p.amount) ?? 0,
    currency: String(p.currency ?? ''),
    status: String(p.status ?? ''),
    provider: String(p.provider ?? ''),
    created_at: String(p.created_at ?? ''),
  }));
  const meta = isObject(body.meta) ? body.meta : {};
  const int = (v: unknown, fallback: number): number => toNumber(v) ?? fallback;
  const nullable = (v: unknown): number | null => toNumber(v) ?? null;
  return {
    data,
    meta: {
      current_page: int(meta.current_page, 1),
      last_page: int(meta.last_page, 1),
      per_page: int(meta.per_page, data.length),
      total: int(meta.total, data.length),
      from: nullable(meta.from),
      to: nullable(meta.to),
    },
    links: isObject(body.links) ? (body.links as Record<string, string | null>) : {},
  };
}
