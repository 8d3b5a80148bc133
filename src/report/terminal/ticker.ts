/** Calls `tick` every `intervalMs` until the returned function is called. Injected so tests can tick by hand. */
export interface Ticker {
  every(intervalMs: number, tick: () => void): () => void;
}

/** Real-time ticks; the timer is unref'd so a forgotten heartbeat never keeps the process alive. */
export const realTicker: Ticker = {
  every(intervalMs, tick) {
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  },
};
