/** The options of `deflow run` as commander hands them over (commands/run.ts defines them). */
import type { ObserverFlags } from './run-observers.js';
import type { RunSessionOptions } from './run-session.js';

export interface RunFlags extends RunSessionOptions, ObserverFlags {
  readonly metricsPort?: string;
  readonly input: string[];
  readonly inputs?: string;
  readonly concurrency?: string;
  readonly maxCost?: string;
  readonly allowUnpriced?: boolean;
  readonly dryRun?: boolean;
  readonly json?: boolean;
  readonly report?: string;
  readonly junit?: string;
  readonly html?: string;
  readonly output?: string;
  readonly offline?: boolean;
  readonly stateDir?: string;
  readonly runId?: string;
  readonly resubmitUnknown?: boolean;
  readonly resubmitTimedOut?: boolean;
  /** commander's `--no-cache`. */
  readonly cache?: boolean;
  readonly webhookUrl?: string;
  readonly webhookListen?: string;
  readonly quiet?: boolean;
  /** `--keep-going`: leave out items whose inputs fail the load-time checks and run the rest. */
  readonly keepGoing?: boolean;
  /** `--wait-daily`: wait for a used-up daily window to refill instead of deferring its items. */
  readonly waitDaily?: boolean;
  /** `--wait-lock[=DURATION]`: '' (alone) waits as long as it takes. */
  readonly waitLock?: string | boolean;
  /** `--drain[=DURATION]`: '' or true (alone) waits until the jobs are done. */
  readonly drain?: string | boolean;
  readonly queue?: string;
  /** commander's `--no-color`. */
  readonly color?: boolean;
}
