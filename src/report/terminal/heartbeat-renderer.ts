import type { RunEvent } from '../../engine/index.js';
import type { EventRenderer } from './event-renderer.js';
import { formatCost, formatTotal } from '../format-cost.js';
import { formatEta, formatFinalSummary, formatItemProblem, formatProgress, oneLine } from './progress-lines.js';
import { PoolWaits } from '../files/pool-waits.js';
import { RunTally } from '../files/run-tally.js';
import { realTicker, type Ticker } from './ticker.js';
import { RunEta } from './run-eta.js';
import { GithubStepGroups } from '../ci/github-step-groups.js';

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
  /**
   * Real milliseconds after which a progress line is printed even when nothing changed.
   * @default 30000
   */
  readonly quietMs?: number;
  /** Real time, for the countdowns of waits (tests pass their own). @default Date.now */
  readonly realNow?: () => number;
  /**
   * In a GitHub Actions log: each workflow step's summary in a folded `::group::` block,
   * written whole when the step settles; progress lines stay outside the blocks.
   * @default false
   */
  readonly stepGroups?: boolean;
}

const PREFIX = '[deflow]';

/**
 * Progress for logs that are not a terminal (CI): a start line, a progress line when something
 * changed (checked every `intervalMs`) or every `quietMs` at the least, the first few failures,
 * warnings, and a final summary line. Never one line per item: 1,000 items must not mean
 * thousands of lines, and a run held by a rate window does not repeat the same line: it says
 * what it waits for and for how long, with an ETA from the learned rates.
 */
export class HeartbeatRenderer implements EventRenderer {
  private readonly tally = new RunTally();
  private readonly ticker: Ticker;
  private readonly intervalMs: number;
  private readonly maxProblemLines: number;
  private stopTicking: (() => void) | null = null;
  private problemLines = 0;
  private ended = false;
  private readonly waits: PoolWaits;
  private readonly eta: RunEta;
  private readonly quietMs: number;
  private lastSignature: string | null = null;
  private sinceLine = 0;
  private readonly groups: GithubStepGroups | null;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    options: HeartbeatOptions = {},
  ) {
    this.ticker = options.ticker ?? realTicker;
    this.intervalMs = options.intervalMs ?? 5000;
    this.maxProblemLines = options.maxProblemLines ?? 10;
    this.quietMs = options.quietMs ?? 30_000;
    this.waits = new PoolWaits(options.realNow);
    this.eta = new RunEta(options.realNow);
    this.groups = options.stepGroups === true ? new GithubStepGroups() : null;
    if (!(this.intervalMs > 0)) throw new RangeError(`intervalMs must be a positive number, got ${String(options.intervalMs)}`);
  }

  handle(event: RunEvent): void {
    const step = this.tally.apply(event);
    this.waits.apply(event);
    this.eta.apply(event);
    this.report(event);
    if (this.groups === null) return;
    const problem = event.type === 'item-failed' || event.type === 'item-unknown' || event.type === 'item-timed-out' ? `${event.type === 'item-unknown' ? '?' : '✗'} ${formatItemProblem(event)}` : undefined;
    const block = this.groups.apply(event, step, problem);
    // One write per block: nothing else can land inside it.
    if (block !== undefined) this.stream.write(block);
  }

  async finish(): Promise<void> {
    this.stop();
  }

  private report(event: RunEvent): void {
    switch (event.type) {
      case 'run-started': {
        const items = event.steps.reduce((sum, step) => sum + step.items, 0);
        this.line(`${event.resumed ? 'resuming' : 'running'} ${event.workflowName || event.workflow}: ${items} items in ${event.steps.length} steps (run ${event.runId})`);
        this.stopTicking ??= this.ticker.every(this.intervalMs, () => this.tick());
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
      case 'item-timed-out':
        this.problem(event);
        return;
      case 'warning':
        this.line(`warning: ${oneLine(event.message)}`);
        return;
      case 'daily-limit': {
        const reset = event.resetAt === null ? '' : ` until ${new Date(event.resetAt).toISOString()}`;
        const what = event.wait === true ? `waiting for its reset${reset} (--wait-daily)` : `its items are deferred${reset}`;
        this.line(`daily rate limit reached (${event.pool}): ${what}; other pools go on`);
        return;
      }
      case 'run-finished':
        this.end();
        return;
      default:
        return;
    }
  }

  /** A progress line when something changed since the last one, or `quietMs` passed. */
  private tick(): void {
    this.sinceLine += this.intervalMs;
    const totals = this.tally.totals();
    const progress = formatProgress(totals, this.tally.quoted);
    const signature = `${progress}|${this.waits.signature()}`;
    if (signature === this.lastSignature && this.sinceLine < this.quietMs) return;
    this.lastSignature = signature;
    this.sinceLine = 0;
    const waiting = this.waits.lines();
    const remaining = new Map(this.tally.steps.map((s) => [s.id, s.items - s.done - s.failed - s.skipped - s.unknown - s.running]));
    // Held by a rate window: the learned rate says how long (labelled virtual on the emulator's clock);
    // otherwise the pace of this session's items, in real time.
    const waitEta = waiting.length > 0 ? this.waits.eta(remaining) : undefined;
    const eta = waitEta === undefined ? formatEta(this.eta.remainingMs(totals)) : `ETA ${waitEta}`;
    this.line(`${progress}${waiting.length > 0 ? ` · waiting: ${waiting.join('; ')}` : ''} · ${eta}`);
  }

  private problem(event: Extract<RunEvent, { type: 'item-failed' | 'item-unknown' | 'item-timed-out' }>): void {
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
    // Steps that never settled (an interrupted or refused run) still get their block.
    for (const block of this.groups?.rest(this.tally.steps) ?? []) this.stream.write(block);
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
