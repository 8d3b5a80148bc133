/**
 * Run events as OpenTelemetry spans: one span per session of a run (`RUN <workflow>`, the
 * CI/CD conventions' pipeline run), one per step under it, and one per item job under its step,
 * named and described by the GenAI conventions where they fit (`gen_ai.operation.name`,
 * `gen_ai.request.model`, `gen_ai.provider.name`) and by `deflow.*` attributes: task, item key,
 * request id, the job's cost in USD, the quote, the cache. The submission, each poll, the
 * download and the save are events of the job's span; rate-limit waits, 429s, retries, daily
 * deferrals and budget stops are events too. Loaded only when tracing is on.
 *
 * Times are real wall time (the emulator's accelerated clock never reaches a trace).
 */
import { type Context, type Span, SpanKind, SpanStatusCode, ROOT_CONTEXT, type Tracer, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import { UsdTally } from '../../common/index.js';
import type { NodeRef, RunEvent } from '../../engine/index.js';
import { flushWithin, spanProcessors } from './trace-provider.js';
import { parentFromEnvironment, traceIdOfRun } from './trace-ids.js';
import type { TraceSettings } from './trace-settings.js';

/** What the recorder knows of each step before the run: its task and model. */
export interface TracedStep {
  readonly id: string;
  readonly task: string;
  readonly model: string | null;
}

export interface TraceRecorderOptions {
  readonly settings: TraceSettings;
  readonly env: NodeJS.ProcessEnv;
  readonly steps: readonly TracedStep[];
  readonly version: string;
  /** Real wall time in ms. @default Date.now */
  readonly now?: () => number;
}

export interface TraceRecorder {
  readonly handle: (event: RunEvent) => void;
  /** The W3C `traceparent` of the span of a step's item job (else of its step, else of the run), for a queue worker's spans to join. */
  readonly traceparentOf: (step: string, index: number) => string | undefined;
  /** Ends what is still open and flushes, within `deadlineMs`; never rejects. */
  finish(deadlineMs?: number): Promise<void>;
}

const PROVIDER = 'deapi';

/** `gen_ai.operation.name`: `embeddings` for embedding tasks, else `generate_content`. */
export function operationOf(task: string): string {
  return /embed/i.test(task) ? 'embeddings' : 'generate_content';
}

const nodeKey = (node: NodeRef): string => `${node.step}\u0000${node.index}`;

export function openTraceRecorder(options: TraceRecorderOptions): TraceRecorder {
  const now = options.now ?? Date.now;
  const steps = new Map(options.steps.map((step) => [step.id, step]));
  const { settings } = options;
  const processors = spanProcessors(settings);
  const random = new RandomIdGenerator();
  let runTraceId: string | null = null;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      ...settings.resourceAttributes,
      'service.name': settings.serviceName,
      'service.version': options.version,
    }),
    // A root span (no TRACEPARENT) takes the trace id of its run: every session joins one trace.
    idGenerator: { generateTraceId: () => runTraceId ?? random.generateTraceId(), generateSpanId: () => random.generateSpanId() },
    spanProcessors: processors,
  });
  const tracer: Tracer = provider.getTracer('deflow', options.version);

  let session: Span | null = null;
  let sessionContext: Context = ROOT_CONTEXT;
  const sessionCost = new UsdTally();
  const stepSpans = new Map<string, { span: Span; context: Context; cost: UsdTally; open: number; done: number; failed: number }>();
  const items = new Map<string, { span: Span; cost: UsdTally; keyless?: boolean }>();
  let finished = false;

  const stepOf = (id: string) => {
    let entry = stepSpans.get(id);
    if (entry === undefined) {
      const def = steps.get(id);
      const span = tracer.startSpan(
        `step ${id}`,
        { kind: SpanKind.INTERNAL, startTime: now(), attributes: { 'cicd.pipeline.task.name': id, 'deflow.step': id, ...(def ? { 'deflow.task': def.task } : {}) } },
        sessionContext,
      );
      entry = { span, context: trace.setSpan(sessionContext, span), cost: new UsdTally(), open: 0, done: 0, failed: 0 };
      stepSpans.set(id, entry);
    }
    return entry;
  };

  const itemOf = (node: NodeRef) => {
    const key = nodeKey(node);
    let entry = items.get(key);
    if (entry?.keyless === true && node.key !== '') {
      // Opened for a queue worker before any event named its item.
      entry.span.setAttribute('deflow.item.key', node.key);
      entry.keyless = false;
    }
    if (entry === undefined) {
      const step = stepOf(node.step);
      const def = steps.get(node.step);
      const operation = operationOf(def?.task ?? '');
      const span = tracer.startSpan(
        `${operation} ${def?.model ?? def?.task ?? node.step}`,
        {
          kind: SpanKind.CLIENT,
          startTime: now(),
          attributes: {
            'gen_ai.operation.name': operation,
            'gen_ai.provider.name': PROVIDER,
            ...(def?.model ? { 'gen_ai.request.model': def.model } : {}),
            'deflow.task': def?.task ?? '',
            'deflow.step': node.step,
            'deflow.item.index': node.index,
            'deflow.item.key': node.key,
          },
        },
        step.context,
      );
      entry = { span, cost: new UsdTally() };
      items.set(key, entry);
      step.open += 1;
    }
    return entry;
  };

  const endItem = (node: NodeRef, outcome: 'done' | 'failed' | 'skipped' | 'deferred' | 'unknown', cost: number, error?: { code: string; message: string }): void => {
    const entry = itemOf(node);
    const step = stepOf(node.step);
    entry.cost.add(cost);
    step.cost.add(cost);
    sessionCost.add(cost);
    entry.span.setAttribute('deflow.cost_usd', entry.cost.usd);
    entry.span.setAttribute('deflow.item.state', outcome);
    if (error !== undefined) {
      entry.span.setAttribute('error.type', error.code);
      entry.span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    if (outcome === 'done') step.done += 1;
    if (outcome === 'failed' || outcome === 'unknown') step.failed += 1;
    entry.span.end(now());
    items.delete(nodeKey(node));
    step.open -= 1;
  };

  const closeAll = (state: string): void => {
    for (const [key, entry] of items) {
      entry.span.setAttribute('deflow.item.state', state);
      entry.span.setAttribute('deflow.cost_usd', entry.cost.usd);
      entry.span.end(now());
      items.delete(key);
    }
    for (const [id, step] of stepSpans) {
      step.span.setAttributes({ 'deflow.cost_usd': step.cost.usd, 'deflow.items.done': step.done, 'deflow.items.failed': step.failed });
      step.span.end(now());
      stepSpans.delete(id);
    }
  };

  const handle = (event: RunEvent): void => {
    if (finished) return;
    if (event.type === 'run-started') {
      runTraceId = traceIdOfRun(event.runId);
      const parent = parentFromEnvironment(options.env);
      const parentContext =
        parent === null
          ? ROOT_CONTEXT
          : trace.setSpanContext(ROOT_CONTEXT, {
              traceId: parent.traceId,
              spanId: parent.spanId,
              traceFlags: parent.traceFlags,
              isRemote: true,
              ...(parent.traceState === undefined ? {} : { traceState: new TraceState(parent.traceState) }),
            });
      session = tracer.startSpan(
        `RUN ${event.workflowName}`,
        {
          kind: SpanKind.SERVER,
          startTime: now(),
          attributes: {
            'cicd.pipeline.name': event.workflowName,
            'cicd.pipeline.run.id': event.runId,
            'cicd.pipeline.action.name': 'RUN',
            'deflow.run.id': event.runId,
            'deflow.run.trace_id': runTraceId,
            'deflow.workflow': event.workflow,
            'deflow.resumed': event.resumed,
            'deflow.sessions.earlier': event.earlier?.length ?? 0,
          },
        },
        parentContext,
      );
      sessionContext = trace.setSpan(parentContext, session);
      for (const step of event.steps) stepOf(step.id).span.setAttribute('deflow.items.total', step.items);
      return;
    }
    if (session === null) return;
    switch (event.type) {
      case 'quoted':
        session.setAttributes({
          'deflow.quote.point_usd': event.total.point,
          'deflow.quote.low_usd': event.total.low,
          'deflow.quote.high_usd': event.total.high,
          'deflow.quote.unpriced_items': event.total.unknownItems,
          'deflow.quote.verdict': event.verdict,
          ...(event.maxCost === null ? {} : { 'deflow.budget.max_cost_usd': event.maxCost }),
        });
        return;
      case 'item-queued':
        itemOf(event.node).span.addEvent('deflow.queued', {}, now());
        return;
      case 'item-submitted': {
        const { span } = itemOf(event.node);
        span.setAttribute('deflow.request_id', event.requestId);
        if (event.quotedCost !== null) span.setAttribute('deflow.quote.point_usd', event.quotedCost);
        span.addEvent('deflow.submit', { 'deflow.request_id': event.requestId, 'deflow.attempt': event.attempt }, now());
        return;
      }
      case 'item-progress':
        itemOf(event.node).span.addEvent('deflow.poll', { 'deflow.job.status': event.status, 'deflow.job.progress': event.progress }, now());
        return;
      case 'item-downloading':
        itemOf(event.node).span.addEvent('deflow.download', { 'deflow.request_id': event.requestId }, now());
        return;
      case 'item-retry':
        itemOf(event.node).span.addEvent('deflow.retry', { 'deflow.attempt': event.attempt, 'error.type': event.error.code }, now());
        return;
      case 'item-done': {
        // Done in an earlier session: its span (and cost) belong to that session.
        if (event.earlier === true) return;
        const { span } = itemOf(event.node);
        span.setAttributes({ 'deflow.cache_hit': event.cached, ...(event.requestId === null ? {} : { 'deflow.request_id': event.requestId }) });
        if (event.quotedCost !== null) span.setAttribute('deflow.quote.point_usd', event.quotedCost);
        if (event.outputs.length > 0) span.addEvent('deflow.save', { 'deflow.outputs': event.outputs.length }, now());
        endItem(event.node, 'done', event.cost);
        return;
      }
      case 'item-failed': {
        const cost = event.unsaved !== undefined && event.unsaved.earlier !== true ? event.unsaved.cost : 0;
        if (event.unsaved?.earlier === true && !items.has(nodeKey(event.node))) return;
        const { span } = itemOf(event.node);
        if (event.requestId !== null) span.setAttribute('deflow.request_id', event.requestId);
        if (event.unsaved !== undefined) span.setAttribute('deflow.unsaved', true);
        endItem(event.node, 'failed', cost, event.error);
        return;
      }
      case 'item-skipped':
        itemOf(event.node).span.setAttribute('deflow.skip.reason', event.reason);
        endItem(event.node, 'skipped', 0);
        return;
      case 'item-deferred':
        itemOf(event.node).span.addEvent('deflow.daily_deferral', { 'deflow.pool': event.pool }, now());
        endItem(event.node, 'deferred', 0);
        return;
      case 'item-unknown':
        endItem(event.node, 'unknown', 0, { code: 'unknown', message: event.reason });
        return;
      case 'throttled':
        session.addEvent('deflow.rate_limited', { 'deflow.pool': event.pool, 'deflow.wait_ms': event.waitMs, 'http.response.status_code': 429 }, now());
        return;
      case 'rate-wait':
        session.addEvent('deflow.rate_limit_wait', { 'deflow.pool': event.pool, 'deflow.wait_ms': event.waitMs }, now());
        return;
      case 'daily-limit':
        session.addEvent('deflow.daily_limit', { 'deflow.pool': event.pool, ...(event.resetAt === null ? {} : { 'deflow.reset_at': new Date(event.resetAt).toISOString() }) }, now());
        return;
      case 'warning':
        session.addEvent('deflow.warning', { message: event.message }, now());
        return;
      case 'run-finished': {
        closeAll(event.status === 'interrupted' ? 'interrupted' : 'pending');
        if (event.budget?.refused) {
          session.addEvent('deflow.budget_stop', { 'deflow.step': event.budget.refused.node.step, 'deflow.amount_usd': event.budget.refused.amount }, now());
        }
        const result = event.status === 'done' && event.exitCode === 0 ? 'success' : event.status === 'interrupted' ? 'cancellation' : 'failure';
        session.setAttributes({
          'cicd.pipeline.result': result,
          'deflow.status': event.status,
          'deflow.exit_code': event.exitCode,
          // This session's jobs (the sum of its job spans) and the run's, in every session.
          'deflow.cost_usd': sessionCost.usd,
          'deflow.run.cost_usd': event.spent,
          'deflow.items.total': event.counts.total,
          'deflow.items.done': event.counts.done,
          'deflow.items.failed': event.counts.failed,
          ...(event.quoted === null ? {} : { 'deflow.quote.point_usd': event.quoted }),
          ...(event.quotedHigh == null ? {} : { 'deflow.quote.high_usd': event.quotedHigh }),
        });
        if (result === 'failure') {
          session.setAttribute('error.type', event.status);
          session.setStatus({ code: SpanStatusCode.ERROR, message: `${event.status} (exit ${event.exitCode})` });
        }
        session.end(now());
        finished = true;
        return;
      }
    }
  };

  return {
    handle,
    traceparentOf: (step, index) => {
      if (session === null || finished) return undefined;
      // The job's span, opened now if no event of it came yet (its item key is set by the first that does).
      let entry = items.get(`${step}\u0000${index}`);
      if (entry === undefined) {
        entry = itemOf({ step, index, key: '' });
        entry.keyless = true;
      }
      const context = entry.span.spanContext();
      return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 1).toString(16).padStart(2, '0')}`;
    },
    async finish(deadlineMs = 3000): Promise<void> {
      if (!finished && session !== null) {
        closeAll('interrupted');
        session.setAttribute('deflow.status', 'ended-early');
        session.end(now());
        finished = true;
      }
      await flushWithin(provider, deadlineMs);
    },
  };
}
