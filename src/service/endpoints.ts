import { TASKS } from './tasks.js';
import type { BodyKind, FieldSpec, PoolId, TaskSpec, V1Endpoint } from './types.js';

/** What an endpoint does. */
export type EndpointKind =
  | 'submit'
  | 'price'
  | 'job-status'
  | 'models'
  | 'balance'
  | 'payments'
  | 'key'
  | 'key-create';

/** One route of the service. */
export interface Endpoint {
  readonly method: 'GET' | 'POST';
  /** Path; `{request_id}` marks the job id segment. */
  readonly path: string;
  readonly version: 'v1' | 'v2';
  readonly kind: EndpointKind;
  /** The pool its requests spend; `null` when not throttled (balance, models). */
  readonly pool: PoolId | null;
  /** `admin` when an ADMIN key is required. */
  readonly role: 'any' | 'admin';
  /** For submit and price endpoints: the task, and the v1 variant when the path is a v1 one. */
  readonly task?: TaskSpec;
  readonly v1?: V1Endpoint;
  readonly body?: BodyKind;
}

/** Pool of every price endpoint, v1 and v2 (docs/deapi-contract.md#rate-limits). */
export const QUOTE_POOL = 'quote';
/** Pool of job-status polls (public docs: jobs status has its own rate). */
export const JOBS_STATUS_POOL = 'jobs_status';
/** Pool of account reads that carry a rate (payments, key). */
export const ACCOUNT_POOL = 'account';
/** Pool of API key creation (hourly cap). */
export const KEY_CREATION_POOL = 'key_creation';

function taskEndpoints(task: TaskSpec): Endpoint[] {
  const routes: Endpoint[] = [
    { method: 'POST', path: task.path, version: 'v2', kind: 'submit', pool: task.pool, role: 'any', task, body: task.body },
    { method: 'POST', path: task.pricePath, version: 'v2', kind: 'price', pool: QUOTE_POOL, role: 'any', task, body: task.body },
  ];
  for (const v1 of task.v1) {
    const body = v1.body ?? task.body;
    routes.push({ method: 'POST', path: v1.path, version: 'v1', kind: 'submit', pool: task.pool, role: 'any', task, v1, body });
    if (v1.pricePath) {
      routes.push({ method: 'POST', path: v1.pricePath, version: 'v1', kind: 'price', pool: QUOTE_POOL, role: 'any', task, v1, body });
    }
  }
  return routes;
}

/** Every route: task submissions and price twins (v2 and v1), then jobs, models and account. */
export const ENDPOINTS: readonly Endpoint[] = [
  ...TASKS.flatMap(taskEndpoints),
  { method: 'GET', path: '/api/v2/jobs/{request_id}', version: 'v2', kind: 'job-status', pool: JOBS_STATUS_POOL, role: 'any' },
  { method: 'GET', path: '/api/v1/client/request-status/{request_id}', version: 'v1', kind: 'job-status', pool: JOBS_STATUS_POOL, role: 'any' },
  { method: 'GET', path: '/api/v2/models', version: 'v2', kind: 'models', pool: null, role: 'any' },
  { method: 'GET', path: '/api/v1/client/models', version: 'v1', kind: 'models', pool: null, role: 'any' },
  { method: 'GET', path: '/api/v2/account/balance', version: 'v2', kind: 'balance', pool: null, role: 'any' },
  { method: 'GET', path: '/api/v1/client/balance', version: 'v1', kind: 'balance', pool: null, role: 'any' },
  { method: 'GET', path: '/api/v2/account/payments', version: 'v2', kind: 'payments', pool: ACCOUNT_POOL, role: 'admin' },
  { method: 'GET', path: '/api/v2/key', version: 'v2', kind: 'key', pool: ACCOUNT_POOL, role: 'any' },
  { method: 'POST', path: '/api/v2/keys', version: 'v2', kind: 'key-create', pool: KEY_CREATION_POOL, role: 'admin' },
];

/**
 * The field list an endpoint validates: the v1 override, or the task's v2 fields. A price
 * twin drops `priceOmits`, adds its price fields, and no longer requires what the price does
 * not depend on (`priceOptional`, and files that `priceRequiredWithout` lets sizes stand in for).
 */
export function endpointFields(endpoint: Endpoint): readonly FieldSpec[] {
  const task = endpoint.task;
  if (!task) return [];
  const custom = endpoint.v1?.fields;
  const base = custom ?? task.fields;
  if (endpoint.kind !== 'price') return base;
  const omit = new Set(task.priceOmits ?? []);
  const optional = new Set(custom ? [] : [...(task.priceOptional ?? []), ...Object.keys(task.priceRequiredWithout ?? {})]);
  const kept = base.filter((f) => !omit.has(f.name)).map((f) => (f.required && optional.has(f.name) ? { ...f, required: false } : f));
  return [...kept, ...(custom ? (endpoint.v1?.priceFields ?? []) : task.priceFields)];
}

/** The exactly-one-of groups an endpoint enforces. */
export function endpointExactlyOneOf(endpoint: Endpoint): readonly (readonly string[])[] {
  if (!endpoint.task) return [];
  const price = endpoint.kind === 'price';
  if (endpoint.v1?.exactlyOneOf) return (price ? endpoint.v1.priceExactlyOneOf : undefined) ?? endpoint.v1.exactlyOneOf;
  if (price && endpoint.task.priceExactlyOneOf) return endpoint.task.priceExactlyOneOf;
  return endpoint.task.exactlyOneOf;
}

/** Price twins only: fields required unless all the listed ones are given (`image` unless `width` and `height`). */
export function endpointRequiredWithout(endpoint: Endpoint): Readonly<Record<string, readonly string[]>> {
  if (endpoint.kind !== 'price' || endpoint.v1?.fields) return {};
  return endpoint.task?.priceRequiredWithout ?? {};
}

/** True when the endpoint is a price twin whose source (file, URL or length) may be left out. */
export function endpointSourceOptional(endpoint: Endpoint): boolean {
  return endpoint.kind === 'price' && endpoint.task?.priceSourceOptional === true;
}

/**
 * v1 prompt boosters the service has retired (public docs: they answer 410 Gone with
 * `Deprecation` and `Link` headers); the v2 prompt enhancement replaces them. The spec's v1
 * index keeps `prompt/speech`, which still works.
 */
export const RETIRED_V1_BOOSTERS: readonly string[] = ['prompt/image', 'prompt/video', 'prompt/image2image', 'prompts/samples'].flatMap(
  (name) => [`/api/v1/client/${name}`, `/api/v1/client/${name}/price-calculation`],
);

/** The v2 endpoint that replaced a retired path, or undefined when `path` is not retired. */
export function retiredSuccessor(path: string): string | undefined {
  return RETIRED_V1_BOOSTERS.includes(path) ? '/api/v2/prompts/enhancements' : undefined;
}

/** Inference types an endpoint's model must serve (any one). */
export function endpointInferenceTypes(endpoint: Endpoint): readonly string[] {
  return endpoint.v1?.inferenceTypes ?? endpoint.task?.inferenceTypes ?? [];
}

const ROUTE_BY_KEY = new Map<string, Endpoint>(
  ENDPOINTS.filter((e) => !e.path.includes('{')).map((e) => [`${e.method} ${e.path}`, e]),
);

/** The endpoint serving `method path` (path without query), or undefined. */
export function matchEndpoint(method: string, path: string): { endpoint: Endpoint; requestId?: string } | undefined {
  const exact = ROUTE_BY_KEY.get(`${method} ${path}`);
  if (exact) return { endpoint: exact };
  if (method !== 'GET') return undefined;
  for (const endpoint of ENDPOINTS) {
    if (endpoint.kind !== 'job-status') continue;
    const prefix = endpoint.path.slice(0, endpoint.path.indexOf('{'));
    if (path.startsWith(prefix)) {
      const id = path.slice(prefix.length);
      if (id.length > 0 && !id.includes('/')) return { endpoint, requestId: decodeURIComponent(id) };
    }
  }
  return undefined;
}

/** Every submission pool (one per v2 submission endpoint, named by its path under /api/v2/). */
export const SUBMISSION_POOLS: readonly PoolId[] = [...new Set(TASKS.filter((t) => !t.sync).map((t) => t.pool))];
