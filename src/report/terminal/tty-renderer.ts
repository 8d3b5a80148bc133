import {
  DefaultRenderer,
  Listr,
  ListrDefaultRendererLogLevels,
  ListrLogger,
  type ListrTaskWrapper,
  ProcessOutput,
} from 'listr2';
import type { RunEvent } from '../../engine/index.js';
import { createPalette, type Palette } from './color.js';
import type { EventRenderer } from './event-renderer.js';
import { formatCost } from '../format-cost.js';
import { HeartbeatRenderer } from './heartbeat-renderer.js';
import { formatFinalSummary, formatOverall } from './progress-lines.js';
import { RunEta } from './run-eta.js';
import { PoolWaits } from '../files/pool-waits.js';
import { isStepSettled, RunTally, type StepProgress } from '../files/run-tally.js';
import { realTicker, type Ticker } from './ticker.js';

/** Options for {@link TtyRenderer}. */
export interface TtyRendererOptions {
  /** Colour decided by the caller (see `shouldUseColor`). */
  readonly color: boolean;
  /**
   * Real milliseconds between title refreshes: events can arrive thousands of times a second,
   * and every title change redraws the list.
   * @default 200
   */
  readonly refreshMs?: number;
  /** @default realTicker */
  readonly ticker?: Ticker;
  /**
   * Spin and redraw on a timer; off, the list redraws only when a title changes (tests).
   * @default true
   */
  readonly animate?: boolean;
  /** Real time, for the ETA (tests pass their own). @default Date.now */
  readonly realNow?: () => number;
}

/** Options for {@link createProgressRenderer}. */
export interface ProgressRendererOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Whether `stream` is a terminal. */
  readonly tty: boolean;
  readonly color: boolean;
  readonly ticker?: Ticker;
  /** Heartbeat interval outside a terminal. @default 5000 */
  readonly heartbeatMs?: number;
  /** @default true */
  readonly animate?: boolean;
}

/**
 * The task list in a terminal; the heartbeat when `stream` is not a terminal or `TERM=dumb`
 * (no cursor movement there, and a CI log would get a line per redraw), with a folded block
 * per workflow step when GITHUB_ACTIONS is true.
 */
export function createProgressRenderer(stream: NodeJS.WritableStream, options: ProgressRendererOptions): EventRenderer {
  if (options.tty && options.env['TERM'] !== 'dumb') {
    return new TtyRenderer(stream, {
      color: options.color,
      ...(options.ticker === undefined ? {} : { ticker: options.ticker }),
      ...(options.animate === undefined ? {} : { animate: options.animate }),
    });
  }
  return new HeartbeatRenderer(stream, {
    stepGroups: options.env['GITHUB_ACTIONS'] === 'true',
    ...(options.ticker === undefined ? {} : { ticker: options.ticker }),
    ...(options.heartbeatMs === undefined ? {} : { intervalMs: options.heartbeatMs }),
  });
}

type StepOutcome = { kind: 'done' | 'failed'; title: string } | { kind: 'skip'; title: string };

interface StepTask {
  readonly progress: StepProgress;
  wrapper: ListrTaskWrapper<unknown, typeof DefaultRenderer, typeof DefaultRenderer> | null;
  dirty: boolean;
  /** Its title showed a wait at the last refresh (cleared once the wait is over). */
  waited: boolean;
  outcome: StepOutcome | null;
  settle: (outcome: StepOutcome) => void;
  readonly settled: Promise<StepOutcome>;
}

/** listr2 picks its fallback renderer from `process.stdout.isTTY`; we decide from our own stream. */
class AnyStreamRenderer extends DefaultRenderer {
  static override nonTTY = true;
}

/**
 * In a terminal: a listr2 task list with one task per step, its title showing items
 * done/running/failed and spend, refreshed from events. Writes to `stream` only (stderr), so
 * stdout stays free for `--json`.
 */
export class TtyRenderer implements EventRenderer {
  private readonly tally = new RunTally();
  private readonly tasks = new Map<string, StepTask>();
  private readonly palette: Palette;
  private readonly ticker: Ticker;
  private readonly waits = new PoolWaits();
  private readonly eta: RunEta;
  /** The overall line above the steps: its listr task, and how it ends. */
  private overall: { wrapper: StepTask['wrapper']; settle: () => void } | null = null;
  private listrRun: Promise<unknown> | null = null;
  private stopTicking: (() => void) | null = null;
  private ending: Promise<void> | null = null;
  /** Step id → what its pool waits for, as of the last refresh. */
  private waiting = new Map<string, string>();

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly options: TtyRendererOptions,
  ) {
    this.palette = createPalette(options.color);
    this.ticker = options.ticker ?? realTicker;
    this.eta = new RunEta(options.realNow);
  }

  handle(event: RunEvent): void {
    this.waits.apply(event);
    this.eta.apply(event);
    if (event.type === 'quoted') {
      this.tally.apply(event);
      return;
    }
    if (event.type === 'run-started') {
      this.tally.apply(event);
      this.start();
      return;
    }
    if (event.type === 'run-finished') {
      this.tally.apply(event);
      this.ending ??= this.end();
      return;
    }
    const progress = this.tally.apply(event);
    if (progress === undefined) return;
    const task = this.tasks.get(progress.id);
    if (task === undefined) return;
    task.dirty = true;
    if (isStepSettled(progress)) this.settle(task);
  }

  async finish(): Promise<void> {
    this.ending ??= this.end();
    await this.ending;
  }

  private start(): void {
    if (this.listrRun !== null) return;
    const tasks = this.tally.steps.map((progress) => {
      const task = createStepTask(progress);
      this.tasks.set(progress.id, task);
      return {
        title: this.title(progress),
        task: async (_ctx: unknown, wrapper: NonNullable<StepTask['wrapper']>): Promise<void> => {
          task.wrapper = wrapper;
          if (task.dirty && task.outcome === null) wrapper.title = this.title(progress);
          const outcome = await task.settled;
          if (outcome.kind === 'skip') {
            wrapper.skip(outcome.title);
            return;
          }
          wrapper.title = outcome.title;
          // A thrown error is how listr2 marks a task failed; the message replaces the title.
          if (outcome.kind === 'failed') throw new Error(outcome.title);
        },
      };
    });
    // One overall line above the steps: done/total, spend against the quote, ETA in real time.
    let endOverall: () => void = () => {};
    const overallEnded = new Promise<void>((resolve) => {
      endOverall = resolve;
    });
    const overall = { wrapper: null as StepTask['wrapper'], settle: endOverall };
    this.overall = overall;
    tasks.unshift({
      title: this.overallTitle(),
      task: async (_ctx: unknown, wrapper: NonNullable<StepTask['wrapper']>): Promise<void> => {
        overall.wrapper = wrapper;
        await overallEnded;
        wrapper.title = this.overallTitle(true);
      },
    });
    const logger = new ListrLogger({
      useIcons: true,
      toStderr: [],
      processOutput: new ProcessOutput(this.stream as NodeJS.WriteStream, this.stream as NodeJS.WriteStream),
    });
    const listr = new Listr(tasks, {
      concurrent: true,
      exitOnError: false,
      registerSignalListeners: false,
      renderer: AnyStreamRenderer,
      rendererOptions: {
        logger,
        color: listrColors(this.palette),
        lazy: this.options.animate === false,
        collapseErrors: true,
        showErrorMessage: true,
      },
    });
    this.listrRun = listr.run().catch(() => undefined);
    this.stopTicking = this.ticker.every(this.options.refreshMs ?? 200, () => this.refresh());
  }

  private refresh(): void {
    // A waiting step's countdown changes with time, not with events; so does the ETA.
    this.waiting = this.waits.byStep();
    if (this.overall?.wrapper) this.overall.wrapper.title = this.overallTitle();
    for (const task of this.tasks.values()) {
      if ((!task.dirty && !this.waiting.has(task.progress.id) && !task.waited) || task.wrapper === null || task.outcome !== null) continue;
      task.dirty = false;
      task.waited = this.waiting.has(task.progress.id);
      task.wrapper.title = this.title(task.progress);
    }
  }

  private settle(task: StepTask, interrupted = false): void {
    if (task.outcome !== null) return;
    const { progress } = task;
    const notRun = progress.items - progress.done - progress.failed - progress.skipped - progress.unknown;
    const title = this.title(progress);
    if (interrupted && notRun > 0) task.settle({ kind: 'skip', title: `${title} · ${notRun} not run` });
    else task.settle({ kind: progress.failed + progress.unknown > 0 ? 'failed' : 'done', title });
  }

  private async end(): Promise<void> {
    this.stopTicking?.();
    this.stopTicking = null;
    if (this.listrRun === null) return;
    for (const task of this.tasks.values()) this.settle(task, true);
    this.overall?.settle();
    await this.listrRun;
    this.stream.write(`${this.palette.bold('deflow')} ${formatFinalSummary(this.tally)}\n`);
    const resume = this.tally.finished?.resumeCommand;
    if (resume) this.stream.write(`resume with: ${this.palette.cyan(resume)}\n`);
  }

  /** Once the run has ended, without the ETA. */
  private overallTitle(ended = false): string {
    const totals = this.tally.totals();
    const line = formatOverall(totals, this.tally.quoted, this.eta.remainingMs(totals));
    return `${this.palette.bold('overall')}  ${ended ? line.replace(/ · ETA .*$/, '') : line}`;
  }

  private title(step: StepProgress): string {
    const { palette } = this;
    // Zero counts are left out so the line fits a narrow terminal.
    const parts = [`${step.done}/${step.items} done`];
    if (step.running > 0) parts.push(`${step.running} running`);
    if (step.cached > 0) parts.push(`${step.cached} cached`);
    if (step.failed > 0) parts.push(palette.red(`${step.failed} failed`));
    if (step.unknown > 0) parts.push(palette.red(`${step.unknown} unknown`));
    if (step.skipped > 0) parts.push(palette.yellow(`${step.skipped} skipped`));
    parts.push(formatCost(step.spent));
    // What holds it back: `audio/speech: 20/min, next window in 42s`.
    const wait = this.waiting.get(step.id);
    if (wait !== undefined && step.done + step.failed + step.skipped + step.unknown < step.items) parts.push(palette.yellow(`waiting: ${wait}`));
    const task = step.task === '' ? '' : ` ${palette.dim(`(${step.task})`)}`;
    return `${palette.bold(step.id)}${task}  ${parts.join(' · ')}`;
  }
}

function createStepTask(progress: StepProgress): StepTask {
  let resolve: (outcome: StepOutcome) => void = () => {};
  const settled = new Promise<StepOutcome>((r) => {
    resolve = r;
  });
  const task: StepTask = {
    progress,
    wrapper: null,
    dirty: false,
    waited: false,
    outcome: null,
    settled,
    settle: (outcome) => {
      task.outcome = outcome;
      resolve(outcome);
    },
  };
  return task;
}

/** listr2 colours its icons with colorette, decided from `process.env` at import; ours follow NO_COLOR as we read it. */
function listrColors(palette: Palette): Record<ListrDefaultRendererLogLevels, (text?: string) => string> {
  const levels = ListrDefaultRendererLogLevels;
  const byLevel: Record<string, (text: string) => string> = {
    [levels.COMPLETED]: palette.green,
    [levels.FAILED]: palette.red,
    [levels.FAILED_WITH_FAILED_SUBTASKS]: palette.red,
    [levels.COMPLETED_WITH_FAILED_SISTER_TASKS]: palette.red,
    [levels.ROLLING_BACK]: palette.red,
    [levels.ROLLED_BACK]: palette.red,
    [levels.WAITING]: palette.dim,
  };
  const colors = {} as Record<ListrDefaultRendererLogLevels, (text?: string) => string>;
  for (const level of Object.values(levels)) {
    const style = byLevel[level] ?? palette.yellow;
    colors[level] = (text = '') => style(text);
  }
  return colors;
}
