/** `node --import` this (a file URL) to give a child process the test-only crash hook. */
export const CRASH_HOOK = new URL('./crash-after-hook.mjs', import.meta.url).href;
