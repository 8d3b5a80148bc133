import { dirname, join, resolve } from 'node:path';
import type { CliIO } from '../common/index.js';
import { DeflowError } from '../common/index.js';
import type { RunEvent, RunEventSink } from '../engine/index.js';
import { shouldUseColor } from './terminal/color.js';
import { EventLogRenderer } from './terminal/event-log.js';
import type { EventRenderer } from './terminal/event-renderer.js';
import { renderAnnotations } from './ci/github-annotations.js';
import { appendStepSummary } from './ci/github-step-summary.js';
import { writeJUnit } from './ci/junit.js';
import { NdjsonRenderer } from './terminal/ndjson-renderer.js';
import { RunReportBuilder } from './files/run-report.js';
import type { Ticker } from './terminal/ticker.js';
import { createProgressRenderer } from './terminal/tty-renderer.js';
import { writeHtmlReport } from './html/write-html-report.js';
import { sinkGuard } from './sink-guard.js';

/** Options for {@link createReporters}: the run command's output flags and the environment. */
export interface ReporterOptions {
  /** `--json`: NDJSON events on stdout; human text stays on stderr. */
  readonly json: boolean;
  /** `--report FILE` (relative to `io.cwd`). */
  readonly reportPath?: string | undefined;
  /**
   * The copy of the JSON report kept in the run's folder (`runs/<run>/report.json`), written
   * too when `reportPath` is elsewhere: `deflow report` writes any report again from it.
   */
  readonly keptReportPath?: string | undefined;
  /** The run's event log in its state folder (`runs/<run>/events.ndjson`), appended to. */
  readonly eventLogPath?: string | undefined;
  /** `--html FILE` (relative to `io.cwd`): drawn from the event log (needs `eventLogPath`) when the run ends. */
  readonly htmlPath?: string | undefined;
  /** `--junit FILE` (relative to `io.cwd`). */
  readonly junitPath?: string | undefined;
  /**
   * Whether stderr, where progress goes, is a terminal.
   * @default io.stderr.isTTY === true
   */
  readonly tty?: boolean | undefined;
  /** `--color` / `--no-color`; otherwise NO_COLOR, FORCE_COLOR, TERM and the TTY decide. */
  readonly color?: boolean | undefined;
  /**
   * `--quiet`: no progress output (files and `--json` are still written).
   * @default false
   */
  readonly quiet?: boolean | undefined;
  readonly env: NodeJS.ProcessEnv;
  /** Timer for the heartbeat and the task list refresh (tests tick it by hand). */
  readonly ticker?: Ticker | undefined;
  /** @default 5000 */
  readonly heartbeatMs?: number | undefined;
  /** @default true */
  readonly animate?: boolean | undefined;
}

export interface Reporters {
  /** Pass to the engine. Never throws: a failing renderer is dropped and its error surfaces from `finish`. */
  readonly sink: RunEventSink;
  /**
   * Stops progress output and writes the files (`--report`, `--junit`, the GitHub step summary
   * and annotations), all of them even when one fails or the run failed. Rejects with the
   * first renderer bug, or with an `E_REPORT_WRITE` error naming every file that failed.
   */
  finish(): Promise<void>;
}

/** Builds the renderers the options ask for and fans the engine's events out to them. */
export function createReporters(io: CliIO, options: ReporterOptions): Reporters {
  const { env } = options;
  const renderers: EventRenderer[] = [];
  if (options.json) renderers.push(new NdjsonRenderer(io.stdout));
  if (options.eventLogPath !== undefined) renderers.push(new EventLogRenderer(options.eventLogPath));
  const htmlPath = options.htmlPath === undefined || options.eventLogPath === undefined ? undefined : resolve(io.cwd, options.htmlPath);
  if (options.quiet !== true) {
    const tty = options.tty ?? io.stderr.isTTY === true;
    renderers.push(
      createProgressRenderer(io.stderr, {
        env,
        tty,
        color: shouldUseColor({ env, isTTY: tty, override: options.color }),
        ...(options.ticker === undefined ? {} : { ticker: options.ticker }),
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
        ...(options.animate === undefined ? {} : { animate: options.animate }),
      }),
    );
  }
  const inActions = env['GITHUB_ACTIONS'] === 'true';
  const summaryPath = inActions && env['GITHUB_STEP_SUMMARY'] ? env['GITHUB_STEP_SUMMARY'] : undefined;
  const reportPath = options.reportPath === undefined ? undefined : resolve(io.cwd, options.reportPath);
  const junitPath = options.junitPath === undefined ? undefined : resolve(io.cwd, options.junitPath);
  const keptReportPath = options.keptReportPath === undefined ? undefined : resolve(io.cwd, options.keptReportPath);
  const builder = reportPath || junitPath || keptReportPath || inActions ? new RunReportBuilder() : null;

  let rendererError: unknown;
  // Output must never stop a paid run; the bug is reported when the run ends.
  const guarded = sinkGuard<number>((_index, error) => {
    rendererError ??= error;
  });
  const sinks: ((event: RunEvent) => void)[] = renderers.map((r) => (event) => r.handle(event));
  if (builder !== null) sinks.push(builder.handle);

  let finishing: Promise<void> | null = null;
  const finishAll = async (): Promise<void> => {
    const writes: Promise<void>[] = [];
    for (const renderer of renderers) writes.push(renderer.finish());
    const progress = await Promise.allSettled(writes);
    for (const outcome of progress) if (outcome.status === 'rejected') rendererError ??= outcome.reason;
    const files: Promise<void>[] = [];
    if (builder !== null) {
      if (reportPath) files.push(builder.writeReport(reportPath));
      if (keptReportPath && keptReportPath !== reportPath) files.push(builder.writeReport(keptReportPath));
      if (junitPath) files.push(writeJUnit(junitPath, builder));
      if (summaryPath) files.push(appendStepSummary(summaryPath, builder, { reportPath: options.reportPath ?? null }));
      if (inActions) {
        // Workflow commands are read from stdout and stderr alike; with --json, stdout is NDJSON only.
        const stream = options.json ? io.stderr : io.stdout;
        for (const line of renderAnnotations(builder)) stream.write(`${line}\n`);
      }
    }
    if (htmlPath !== undefined && options.eventLogPath !== undefined) {
      const eventLog = options.eventLogPath;
      files.push(writeHtmlReport({ eventLog, quoteFile: join(dirname(eventLog), 'quote.json'), out: htmlPath }).then(() => {}));
    }
    const written = await Promise.allSettled(files);
    if (rendererError !== undefined) throw rendererError;
    const errors = written.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) {
      const messages = errors.map((error) => (error instanceof Error ? error.message : String(error)));
      throw new DeflowError('E_REPORT_WRITE', messages.join('; '), { cause: errors[0] });
    }
  };

  return {
    sink: (event) => {
      for (let i = 0; i < sinks.length; i++) guarded(i, sinks[i]!, event);
    },
    finish: () => {
      finishing ??= finishAll();
      return finishing;
    },
  };
}
