/** How a command file hands its action to the entry point (main.ts builds the wrapper). */

/** Wraps an async command action so that its resolved exit code reaches the entry point. */
export type ActionWrapper = <A extends unknown[]>(action: (...args: A) => Promise<number>) => (...args: A) => Promise<void>;
