/**
 * A queue worker's spans (OpenTelemetry): one per job it runs, a child of the coordinator's
 * span of that job (the `traceparent` the job carries), so a queued run is one trace across
 * the coordinator and its workers. The submission, each poll, the download and retries are
 * events of the span. The job's cost is on the coordinator's span of it, not here: summing
 * `deflow.cost_usd` over a trace's job spans gives the run's spend once. Loaded only when the
 * worker traces (the OTEL_* variables).
 */
import { type Span, SpanKind, SpanStatusCode, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { RunEvent } from '../../engine/index.js';
import { flushWithin, spanProcessors } from './trace-provider.js';
import { parentFromEnvironment } from './trace-ids.js';
import type { TraceSettings } from './trace-settings.js';

export interface WorkerTracer {
  /** A job this worker starts (before its events). */
  readonly jobStarted: (job: { readonly run: string; readonly step: string; readonly k: number; readonly traceparent?: string }) => void;
  readonly handle: (event: RunEvent) => void;
  /** Ends what is still open and flushes, within `deadlineMs`; never rejects. */
  finish(deadlineMs?: number): Promise<void>;
}

export function openWorkerTracer(options: { readonly settings: TraceSettings; readonly version: string; readonly now?: () => number }): WorkerTracer {
  const now = options.now ?? Date.now;
  const { settings } = options;
  const processors = spanProcessors(settings);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ ...settings.resourceAttributes, 'service.name': settings.serviceName, 'service.version': options.version }),
    spanProcessors: processors,
  });
  const tracer = provider.getTracer('deflow-worker', options.version);
  // Open spans by step and item index (a worker runs a step's item once at a time).
  const open = new Map<string, Span>();
  const keyOf = (step: string, index: number): string => `${step}\u0000${index}`;

  const end = (step: string, index: number, state: string, error?: { code: string; message: string }): void => {
    const span = open.get(keyOf(step, index));
    if (span === undefined) return;
    span.setAttribute('deflow.item.state', state);
    if (error !== undefined) {
      span.setAttribute('error.type', error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    span.end(now());
    open.delete(keyOf(step, index));
  };

  return {
    jobStarted: (job) => {
      const parent = job.traceparent === undefined ? null : parentFromEnvironment({ TRACEPARENT: job.traceparent });
      const context = parent === null ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.traceFlags, isRemote: true });
      open.get(keyOf(job.step, job.k))?.end(now());
      const span = tracer.startSpan(
        `worker ${job.step}[${job.k}]`,
        { kind: SpanKind.CONSUMER, startTime: now(), attributes: { 'deflow.run.id': job.run, 'deflow.step': job.step, 'deflow.item.index': job.k, 'deflow.worker.pid': process.pid } },
        context,
      );
      open.set(keyOf(job.step, job.k), span);
    },
    handle: (event) => {
      if (!('node' in event)) return;
      const span = open.get(keyOf(event.node.step, event.node.index));
      if (span === undefined) return;
      switch (event.type) {
        case 'item-submitted':
          span.setAttribute('deflow.request_id', event.requestId);
          span.addEvent('deflow.submit', { 'deflow.request_id': event.requestId, 'deflow.attempt': event.attempt }, now());
          return;
        case 'item-progress':
          span.addEvent('deflow.poll', { 'deflow.job.status': event.status, 'deflow.job.progress': event.progress }, now());
          return;
        case 'item-downloading':
          span.addEvent('deflow.download', { 'deflow.request_id': event.requestId }, now());
          return;
        case 'item-retry':
          span.addEvent('deflow.retry', { 'deflow.attempt': event.attempt, 'error.type': event.error.code }, now());
          return;
        case 'item-done':
          span.setAttribute('deflow.cache_hit', event.cached);
          end(event.node.step, event.node.index, 'done');
          return;
        case 'item-failed':
          end(event.node.step, event.node.index, 'failed', event.error);
          return;
        case 'item-skipped':
          end(event.node.step, event.node.index, 'skipped');
          return;
        case 'item-deferred':
          end(event.node.step, event.node.index, 'deferred');
          return;
        case 'item-unknown':
          end(event.node.step, event.node.index, 'unknown', { code: 'unknown', message: event.reason });
          return;
        case 'item-timed-out':
          end(event.node.step, event.node.index, 'timed-out', event.error);
          return;
        default:
          return;
      }
    },
    async finish(deadlineMs = 3000): Promise<void> {
      for (const span of open.values()) {
        span.setAttribute('deflow.item.state', 'handed-back');
        span.end(now());
      }
      open.clear();
      await flushWithin(provider, deadlineMs);
    },
  };
}
