import type { RunEvent } from '../../engine/index.js';

/** Something that turns engine events into output. `finish` stops timers and flushes. */
export interface EventRenderer {
  handle(event: RunEvent): void;
  finish(): Promise<void>;
}
