import { readFile } from 'node:fs/promises';
import { writeFileAtomically } from '../../common/index.js';
import { readEventLog } from '../terminal/event-log.js';
import { type QuotedSteps, renderHtmlReport } from './html-report.js';
import { buildTimeline, type TimelineModel } from './timeline-model.js';

export interface WriteHtmlReportOptions {
  /** The run's event log (`runs/<run>/events.ndjson`). */
  readonly eventLog: string;
  /** The run's quote (`runs/<run>/quote.json`), read when it exists. */
  readonly quoteFile?: string | undefined;
  /** Where the page goes. */
  readonly out: string;
  /**
   * The run's status as its state folder tells it (`crashed` once the process that wrote it is
   * dead): a log whose last session never said how it ended is drawn with it, not as running.
   */
  readonly runStatus?: string | undefined;
}

/** Reads a run's event log (and quote), renders the HTML report and writes it atomically. */
export async function writeHtmlReport(options: WriteHtmlReportOptions): Promise<{ model: TimelineModel; bytes: number }> {
  const { events, skipped } = await readEventLog(options.eventLog);
  const model = buildTimeline(events, skipped);
  if (model.status === 'running' && options.runStatus !== undefined && options.runStatus !== 'running') {
    model.status = options.runStatus;
    for (const session of model.sessions) if (session.status === 'running') session.status = 'crashed';
  }
  const quote = options.quoteFile === undefined ? undefined : await readQuotedSteps(options.quoteFile);
  const html = renderHtmlReport(model, { quote });
  await writeFileAtomically(options.out, html, { makeFolder: true });
  return { model, bytes: Buffer.byteLength(html) };
}

/** The per-step points of a `deflow quote --format json` file (format 2), or undefined. */
async function readQuotedSteps(path: string): Promise<QuotedSteps | undefined> {
  try {
    const quote = JSON.parse(await readFile(path, 'utf8')) as { format_version?: unknown; steps?: { id?: unknown; subtotal?: { point?: unknown; unknown_items?: unknown } }[] };
    if (quote.format_version !== 2 || !Array.isArray(quote.steps)) return undefined;
    return {
      steps: quote.steps.flatMap((step) =>
        typeof step.id === 'string' && typeof step.subtotal?.point === 'number'
          ? [{ id: step.id, point: step.subtotal.point, unknownItems: typeof step.subtotal.unknown_items === 'number' ? step.subtotal.unknown_items : 0 }]
          : [],
      ),
    };
  } catch {
    return undefined;
  }
}
