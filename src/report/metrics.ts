/**
 * The report layer's second public face: Prometheus metrics (prom-client), kept apart from
 * index.ts so that only `deflow worker --metrics-port` and the metrics flags load prom-client.
 */
export { METRICS, RunMetrics, WorkerMetrics } from './telemetry/run-metrics.js';
