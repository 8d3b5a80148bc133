// Types of the two undici 7 modules the client loads directly (see undici-core.ts).
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** Dispatcher.prototype.request: called with the dispatcher as `this`. */
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
