
/**
 * A signal meant to be shared by many concurrent waits (a quote's price requests waiting on
 * the rate governor, each adding an `abort` listener while it waits): it follows `parent`
 * through one listener of its own, and says it has no listener limit, so Node does not take
 * twenty legitimate waiters for a leak (`MaxListenersExceededWarning`). `dispose` removes the
 * listener from `parent` once the work is over.
 */
export function fanOutSignal(parent: AbortSignal | undefined): { readonly signal: AbortSignal | undefined; dispose(): void } {
  if (parent === undefined) return { signal: undefined, dispose: () => {} };
  const controller = new AbortController();
  // node:events loaded when first used: a start that makes no signal compiles none of it.
  process.getBuiltinModule('node:events').setMaxListeners(0, controller.signal);
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, dispose: () => parent.removeEventListener('abort', onAbort) };
}
