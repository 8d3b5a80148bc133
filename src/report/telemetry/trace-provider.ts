/**
 * What the run's tracer and the worker's tracer share about their span pipeline: the
 * processors the trace settings ask for, and a flush bounded by a deadline at the end.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { type BasicTracerProvider, BatchSpanProcessor, ConsoleSpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { FileSpanExporter } from './file-span-exporter.js';
import type { TraceSettings } from './trace-settings.js';

/** One batching processor per destination the settings name (file, OTLP endpoint, console). */
export function spanProcessors(settings: TraceSettings): SpanProcessor[] {
  const processors: SpanProcessor[] = [];
  if (settings.file !== null) processors.push(new BatchSpanProcessor(new FileSpanExporter(settings.file)));
  if (settings.otlpUrl !== null) processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.otlpUrl, timeoutMillis: 5000 })));
  if (settings.console) processors.push(new BatchSpanProcessor(new ConsoleSpanExporter()));
  return processors;
}

/** Flushes and shuts the provider down, waiting no longer than `deadlineMs`; a failed export is dropped. */
export async function flushWithin(provider: BasicTracerProvider, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
    timer.unref();
  });
  const flush = (async () => {
    await provider.forceFlush();
    await provider.shutdown();
  })().catch(() => {});
  await Promise.race([flush, deadline]);
  clearTimeout(timer);
}
