/**
 * The report layer's third public face: a queue worker's spans (OpenTelemetry), kept apart from
 * index.ts so that only a worker that traces loads OpenTelemetry.
 */
export { openWorkerTracer } from './telemetry/worker-tracer.js';
export type { WorkerTracer } from './telemetry/worker-tracer.js';
