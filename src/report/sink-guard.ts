/**
 * Output must never stop a paid run: a sink (renderer, report builder, tracer, metrics) that
 * throws is not called again, and its error is handed on once, for the run's end to report.
 */
import type { RunEvent } from '../engine/index.js';

/** Calls `handle(event)` unless the sink named `key` threw before; its first throw goes to `onError`. */
export function sinkGuard<K>(onError: (key: K, error: unknown) => void): (key: K, handle: (event: RunEvent) => void, event: RunEvent) => void {
  const failed = new Set<K>();
  return (key, handle, event) => {
    if (failed.has(key)) return;
    try {
      handle(event);
    } catch (error) {
      failed.add(key);
      onError(key, error);
    }
  };
}
