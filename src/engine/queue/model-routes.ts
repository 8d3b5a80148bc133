/**
 * Which bucket a model's requests spend. Until an answer says whether the model has limits
 * of its own (`X-RateLimit-Source: model`) or shares its pool's, one request per model
 * probes through the pool's bucket and the model's other requests wait for its answer.
 */
import type { AcquireRequest } from '../../client/index.js';
import { bucketKey } from './bucket-key.js';

export type ModelRoute =
  /** Spend the bucket `key`. */
  | { readonly kind: 'bucket'; readonly key: string }
  /** Probe through the pool's bucket; call `learn` (or `finish` alone) once the answer is in. */
  | { readonly kind: 'probe'; readonly routeKey: string; readonly finish: () => void };

export class ModelRoutes {
  /** `pool␀model` → which bucket that model's requests spend. */
  private readonly routes = new Map<string, 'pool' | 'model'>();
  private readonly probes = new Map<string, Promise<void>>();

  /** The bucket of `request`, or the probe it must make (waits while another request probes). */
  async route(request: AcquireRequest & { readonly pool: string }): Promise<ModelRoute> {
    const { pool, model } = request;
    for (;;) {
      request.signal?.throwIfAborted();
      const routeKey = model ? `${pool}\u0000${model}` : undefined;
      const route = routeKey === undefined ? 'pool' : this.routes.get(routeKey);
      if (route === 'model') return { kind: 'bucket', key: bucketKey(pool, model) };
      if (route === 'pool') return { kind: 'bucket', key: pool };
      const pending = this.probes.get(routeKey!);
      if (pending !== undefined) {
        await abortable(pending, request.signal);
        continue;
      }
      let done!: () => void;
      this.probes.set(routeKey!, new Promise<void>((resolve) => (done = resolve)));
      const finish = (): void => {
        this.probes.delete(routeKey!);
        done();
      };
      return { kind: 'probe', routeKey: routeKey!, finish };
    }
  }

  /** Records what a probe's answer said. */
  learn(routeKey: string, route: 'pool' | 'model'): void {
    this.routes.set(routeKey, route);
  }
}

function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, reject);
  });
}
