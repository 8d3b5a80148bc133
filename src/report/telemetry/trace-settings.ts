/**
 * Whether a run is traced and where its spans go, from the standard OpenTelemetry variables
 * (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_SDK_DISABLED) and `--trace-file`. Reading them loads no
 * OpenTelemetry module: tracing is off unless asked for, and costs nothing then.
 */
export interface TraceSettings {
  /** `--trace-file FILE`: OTLP JSON, one export request a line. */
  readonly file: string | null;
  /** OTLP/HTTP traces endpoint (the full URL, `/v1/traces` included). */
  readonly otlpUrl: string | null;
  /** `OTEL_TRACES_EXPORTER=console`: spans printed on stderr. */
  readonly console: boolean;
  readonly serviceName: string;
  readonly resourceAttributes: Readonly<Record<string, string>>;
}

const DEFAULT_OTLP = 'http://localhost:4318/v1/traces';

/** The settings, or null when nothing asks for traces. */
export function traceSettings(env: NodeJS.ProcessEnv, traceFile: string | undefined): TraceSettings | null {
  const disabled = env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true';
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const tracesEndpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  const endpoint = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  let otlpUrl: string | null = null;
  let console = false;
  if (!disabled && !exporters.includes('none')) {
    const wantsOtlp = exporters.includes('otlp') || (exporters.length === 0 && (Boolean(tracesEndpoint) || Boolean(endpoint)));
    if (wantsOtlp) otlpUrl = tracesEndpoint || (endpoint ? `${endpoint.replace(/\/+$/, '')}/v1/traces` : DEFAULT_OTLP);
    console = exporters.includes('console');
  }
  if (traceFile === undefined && otlpUrl === null && !console) return null;
  return {
    file: traceFile ?? null,
    otlpUrl,
    console,
    serviceName: env['OTEL_SERVICE_NAME']?.trim() || 'deflow',
    resourceAttributes: parseResourceAttributes(env['OTEL_RESOURCE_ATTRIBUTES'] ?? ''),
  };
}

/** `key1=value1,key2=value2`, percent-decoded (the OpenTelemetry environment format). */
export function parseResourceAttributes(raw: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const decode = (text: string): string => {
      try {
        return decodeURIComponent(text.trim());
      } catch {
        return text.trim();
      }
    };
    attributes[decode(pair.slice(0, at))] = decode(pair.slice(at + 1));
  }
  return attributes;
}
