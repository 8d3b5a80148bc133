/**
 * undici's `Agent` and `request()`, loaded from their own modules. undici's index also loads
 * fetch, WebSocket, EventSource, cookies, caches, mocks and interceptors, which the client
 * never uses: loading the index took 160–300 ms against 50–60 ms for these two (Node 20,
 * 2 cores, loaded machine), paid by every command that talks to the service before its first
 * request. The module paths are undici 7's (the lockfile pins it); every client test runs
 * through them.
 */
import type { Dispatcher } from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import dispatcherRequest from 'undici/lib/api/api-request.js';

/** undici's keep-alive `Agent`. */
export const Agent = AgentClass;

/** Options of {@link request}: undici's, with the dispatcher required (no global one is loaded). */
export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  readonly dispatcher: Dispatcher;
  readonly method: Dispatcher.HttpMethod;
};

/** undici's `request(url, options)` through `options.dispatcher`. */
export function request(url: string | URL, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const target = typeof url === 'string' ? new URL(url) : url;
  const { dispatcher, ...rest } = options;
  return dispatcherRequest.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
  });
}
