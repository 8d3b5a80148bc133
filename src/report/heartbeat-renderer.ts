import type { RunEvent } from '../engine/index.js';
import type { EventRenderer } from './event-renderer.js';
import { formatCost, formatTotal } from './format-cost.js';
import { formatFinalSummary, formatItemProblem, formatProgress, oneLine } from './progress-lines.js';
import { RunTally } from './run-tally.js';
import { realTicker, type Ticker } from './ticker.js';

/** Options for {@link HeartbeatRenderer}. */
export interface HeartbeatOptions {
  /**
   * Real milliseconds between progress lines.
   * @default 5000
   */
  readonly intervalMs?: number;
  /** @default realTicker */
  readonly ticker?: Ticker;
  /**
   * Failed or unknown items printed as they happen; later ones are only counted.
   * @default 10
   */
  readonly maxProblemLines?: number;
}

const PREFIX = '[deflow]';

/**
 * Progress for logs that are not a terminal (CI): a start line, one progress line every
 * `intervalMs`, the first few failures, warnings, and a final summary line. Never one line per
 * item: 1,000 items must not mean thousands of lines.
 */
export class HeartbeatRenderer implements EventRenderer {
  private readonly tally = new RunTally();
  private readonly ticker: Ticker;
  private readonly intervalMs: number;
  private readonly maxProblemLines: number;
  private stopTicking: (() => void) | null = null;
  private problemLines = 0;
  private ended = false;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    options: HeartbeatOptions = {},
  ) {
    this.ticker = options.ticker ?? realTicker;
    this.intervalMs = options.intervalMs ?? 5000;
    this.maxProblemLines = options.maxProblemLines ?? 10;
    if (!(this.intervalMs > 0)) throw new RangeError(`intervalMs must be a positive number, got ${String(options.intervalMs)}`);
  }

  handle(event: RunEvent): void {
    this.tally.apply(event);
    switch (event.type) {
      case 'run-started': {
        const items = event.steps.reduce((sum, step) => sum + step.items, 0);
        this.line(`${event.resumed ? 'resuming' : 'running'} ${event.workflowName || event.workflow}: ${items} items in ${event.steps.length} steps (run ${event.runId})`);
        this.stopTicking ??= this.ticker.every(this.intervalMs, () => this.line(formatProgress(this.tally.totals())));
        return;
      }
      case 'quoted': {
        const { total } = event;
        const cap = event.maxCost === null ? '' : `; cap ${formatCost(event.maxCost)}: ${event.verdict}`;
        this.line(`quoted ${formatTotal({ point: total.point, high: total.high, unknown_items: total.unknownItems })}${cap}`);
        return;
      }
      case 'item-failed':
      case 'item-unknown':
        this.problem(event);
        return;
      case 'warning':
        this.line(`warning: ${oneLine(event.message)}`);
        return;
      case 'daily-limit': {
        const reset = event.resetAt === null ? '' : `; resets at ${new Date(event.resetAt).toISOString()}`;
        this.line(`daily rate limit reached (${event.pool}): no new submissions${reset}`);
        return;
      }
      case 'run-finished':
        this.end();
        return;
      default:
        return;
    }
  }

  async finish(): Promise<void> {
    this.stop();
  }

  private problem(event: Extract<RunEvent, { type: 'item-failed' | 'item-unknown' }>): void {
    this.problemLines += 1;
    if (this.problemLines <= this.maxProblemLines) {
      this.line(`${event.type === 'item-unknown' ? '?' : '✗'} ${formatItemProblem(event)}`);
    } else if (this.problemLines === this.maxProblemLines + 1) {
      this.line('further failures are counted, not listed; see the report');
    }
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.stop();
    this.line(formatFinalSummary(this.tally));
    const resume = this.tally.finished?.resumeCommand;
    if (resume) this.line(`resume with: ${resume}`);
  }

  private stop(): void {
    this.stopTicking?.();
    this.stopTicking = null;
  }

  private line(text: string): void {
    this.stream.write(`${PREFIX} ${text}\n`);
  }
}
