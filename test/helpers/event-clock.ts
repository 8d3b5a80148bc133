/** The discrete-event clock, shared with the benchmarks: bench/_event-clock.ts. */
export { createEventClock, type EventClock } from '../../bench/_event-clock.js';
