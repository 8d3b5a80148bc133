/**
 * `--trace-file FILE`: spans as OTLP JSON, one export request a line (the OpenTelemetry file
 * exporter format: JSON Lines, one signal per file), appended, so every session of a run adds
 * to the same file. For CI artifacts and places with no collector to send to.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

export class FileSpanExporter implements SpanExporter {
  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
    mkdirSync(dirname(path), { recursive: true });
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      const request = JsonTraceSerializer.serializeRequest(spans);
      if (request !== undefined) appendFileSync(this.#path, `${Buffer.from(request).toString('utf8')}\n`);
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  async shutdown(): Promise<void> {}

  async forceFlush(): Promise<void> {}
}
