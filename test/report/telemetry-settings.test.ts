import { describe, expect, it } from 'vitest';
import { matches } from '../../src/report/telemetry/notify.js';
import { parentFromEnvironment, traceIdOfRun } from '../../src/report/telemetry/trace-ids.js';
import { parseResourceAttributes, traceSettings } from '../../src/report/telemetry/trace-settings.js';

describe('trace settings from the OpenTelemetry variables', () => {
  it('are off with no variable and no --trace-file', () => {
    expect(traceSettings({}, undefined)).toBeNull();
    expect(traceSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, undefined)).toBeNull();
    expect(traceSettings({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, undefined)).toBeNull();
  });

  it('send to $OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces, or to the traces endpoint as given', () => {
    expect(traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }, undefined)?.otlpUrl).toBe('http://c:4318/v1/traces');
    expect(traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/x' }, undefined)?.otlpUrl).toBe('http://t:1/x');
    expect(traceSettings({ OTEL_TRACES_EXPORTER: 'otlp' }, undefined)?.otlpUrl).toBe('http://localhost:4318/v1/traces');
    expect(traceSettings({ OTEL_TRACES_EXPORTER: 'console' }, undefined)).toMatchObject({ console: true, otlpUrl: null });
    expect(traceSettings({}, '/tmp/spans.jsonl')).toMatchObject({ file: '/tmp/spans.jsonl', otlpUrl: null, serviceName: 'deflow' });
  });

  it('read OTEL_SERVICE_NAME and percent-decoded OTEL_RESOURCE_ATTRIBUTES', () => {
    expect(traceSettings({ OTEL_SERVICE_NAME: 'nightly', OTEL_RESOURCE_ATTRIBUTES: 'team=media,note=a%2Cb' }, 'f')).toMatchObject({ serviceName: 'nightly', resourceAttributes: { team: 'media', note: 'a,b' } });
    expect(parseResourceAttributes('=x,k=,ok=1')).toEqual({ k: '', ok: '1' });
  });
});

describe('trace ids', () => {
  it('are derived from the run id: the same for every session of a run, different between runs', () => {
    expect(traceIdOfRun('20261127-010203-abcd')).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOfRun('20261127-010203-abcd')).toBe(traceIdOfRun('20261127-010203-abcd'));
    expect(traceIdOfRun('20261127-010203-abcd')).not.toBe(traceIdOfRun('20261127-010203-abce'));
  });

  it('TRACEPARENT is read as W3C trace context; a malformed one is ignored', () => {
    expect(parentFromEnvironment({ TRACEPARENT: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', TRACESTATE: 'congo=t61rcWkgMzE' })).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
      traceState: 'congo=t61rcWkgMzE',
    });
    expect(parentFromEnvironment({ TRACEPARENT: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' })).toBeNull();
    expect(parentFromEnvironment({ TRACEPARENT: 'garbage' })).toBeNull();
  });
});

describe('notify on:', () => {
  const finished = (status: string, exitCode: number, deferred = 0) =>
    ({ type: 'run-finished', ts: 0, runId: 'r', status, exitCode, counts: { total: 1, done: 0, cached: 0, failed: 0, skipped: 0, unknown: 0, pending: 0, deferred }, spent: 0, quoted: null, resumeCommand: null }) as never;
  it('failure hears a failed, over-budget or interrupted run, not a done or only-deferred one', () => {
    expect(matches(['failure'], finished('failed', 1))).toBe(true);
    expect(matches(['failure'], finished('over-budget', 4))).toBe(true);
    expect(matches(['failure'], finished('interrupted', 130))).toBe(true);
    expect(matches(['failure'], finished('done', 0))).toBe(false);
    expect(matches(['failure'], finished('daily-limit', 5, 2))).toBe(false);
  });
  it('deferred hears a daily limit; always hears everything', () => {
    expect(matches(['deferred'], finished('daily-limit', 5, 2))).toBe(true);
    expect(matches(['deferred'], finished('failed', 1))).toBe(false);
    expect(matches(['always'], finished('done', 0))).toBe(true);
  });
});
