/**
 * What operators' tools hear of a run, beside the reports: traces (OpenTelemetry), metrics
 * (a Pushgateway or a node_exporter textfile) and run-end notifications. Each is opt-in, and
 * the modules of the first two are loaded only when asked for. None of them can change the
 * run: a failing exporter, gateway or webhook is reported on stderr, and the run's exit code,
 * journal and reports stay as they are.
 */
import type { RunEvent, RunEventSink } from '../../engine/index.js';
import { writeFileAtomically } from '../../common/index.js';
import { type NotifyTarget, notificationOf, originOf, sendNotifications } from './notify.js';
import type { RunMetrics } from './run-metrics.js';
import type { TracedStep, TraceRecorder } from './trace-recorder.js';
import { traceSettings } from './trace-settings.js';
import { sinkGuard } from '../sink-guard.js';

export interface ObserverOptions {
  readonly env: NodeJS.ProcessEnv;
  /** `--trace-file FILE` (absolute). */
  readonly traceFile?: string | undefined;
  /** `--pushgateway URL`. */
  readonly pushgateway?: string | undefined;
  /** `--metrics-file FILE` (absolute). */
  readonly metricsFile?: string | undefined;
  /** Also keep metrics (for a `/metrics` endpoint) even with neither flag. */
  readonly keepMetrics?: boolean;
  readonly notify: readonly NotifyTarget[];
  readonly workflow: string;
  readonly workflowName: string;
  readonly steps: readonly TracedStep[];
  readonly version: string;
  /** The run's report.json, named in notifications. */
  readonly reportPath: string | null;
  /** Where failures of the observers are said. */
  readonly warn: (line: string) => void;
}

export interface Observers {
  readonly sink: RunEventSink;
  /** The run's metrics, when kept. */
  readonly metrics: RunMetrics | null;
  /** The `traceparent` of a job's span, when the run is traced (queue workers' spans join it). */
  readonly traceparentOf: ((step: string, index: number) => string | undefined) | undefined;
  /** Flushes spans, pushes or writes metrics, sends notifications. Never rejects. */
  finish(): Promise<void>;
}

export async function openObservers(options: ObserverOptions): Promise<Observers> {
  const settings = traceSettings(options.env, options.traceFile);
  let tracer: TraceRecorder | null = null;
  if (settings !== null) {
    const { openTraceRecorder } = await import('./trace-recorder.js');
    tracer = openTraceRecorder({ settings, env: options.env, steps: options.steps, version: options.version });
  }
  let metrics: RunMetrics | null = null;
  if (options.pushgateway !== undefined || options.metricsFile !== undefined || options.keepMetrics === true) {
    const { RunMetrics } = await import('./run-metrics.js');
    metrics = new RunMetrics({ workflow: options.workflowName, tasks: new Map(options.steps.map((s) => [s.id, s.task])) });
  }
  let finished: Extract<RunEvent, { type: 'run-finished' }> | null = null;
  const guard = sinkGuard<string>((name, error) => options.warn(`deflow: ${name} stopped: ${error instanceof Error ? error.message : String(error)}`));
  let finishing: Promise<void> | null = null;
  const traced = tracer;
  return {
    metrics,
    traceparentOf: traced === null ? undefined : (step, index) => traced.traceparentOf(step, index),
    sink: (event) => {
      if (event.type === 'run-finished') finished = event;
      if (tracer !== null) guard('tracing', tracer.handle, event);
      if (metrics !== null) guard('metrics', metrics.handle, event);
    },
    finish() {
      finishing ??= (async () => {
        const work: Promise<void>[] = [];
        if (tracer !== null) work.push(tracer.finish());
        if (metrics !== null && options.pushgateway !== undefined) {
          const url = options.pushgateway;
          work.push(metrics.push(url).catch((error: unknown) => options.warn(`deflow: could not push metrics to ${originOf(url)}: ${error instanceof Error ? error.message : String(error)}`)));
        }
        if (metrics !== null && options.metricsFile !== undefined) {
          const file = options.metricsFile;
          work.push(
            metrics
              .text()
              .then((text) => writeFileAtomically(file, text, { makeFolder: true }))
              .catch((error: unknown) => options.warn(`deflow: could not write metrics to ${file}: ${error instanceof Error ? error.message : String(error)}`)),
          );
        }
        const ended = finished;
        if (ended !== null && options.notify.length > 0) {
          const notification = notificationOf(ended, { workflow: options.workflow, workflowName: options.workflowName, reportPath: options.reportPath, now: Date.now() });
          work.push(
            sendNotifications(options.notify, ended, notification).then((results) => {
              for (const result of results) {
                if (result.error !== null) options.warn(`deflow: notification (${result.target.source}) to ${originOf(result.target.url)} failed: ${result.error}; the run's outcome is unchanged`);
              }
            }),
          );
        }
        await Promise.allSettled(work);
      })();
      return finishing;
    },
  };
}
