/**
 * The waiting half of taking a lock someone else holds (`--wait-lock`), shared by the state
 * folder's lock (lock-file.ts) and the queue coordinator's Redis lease: how long the wait has
 * lasted, telling once whom it waits for, and pausing between two looks at the lock.
 */
import { DeflowError } from '../../common/index.js';
import { describeWho, type LockHolder } from './lock-holder.js';

export interface LockWaitOptions {
  /** How long to wait, in ms (Infinity: as long as it takes). */
  readonly waitMs: number;
  /** What is locked, as messages name it. */
  readonly subject: string;
  /** Called once, when the wait begins. */
  readonly onWait?: ((holder: LockHolder, message: string) => void) | undefined;
  /** Resolves when the wait should stop (SIGINT). */
  readonly interrupted?: Promise<void> | undefined;
  /** Between two looks at the lock. @default 200 */
  readonly pollMs?: number | undefined;
}

export class LockWait {
  readonly #options: LockWaitOptions;
  readonly #started = Date.now();
  #told = false;
  #interrupted = false;

  constructor(options: LockWaitOptions) {
    this.#options = options;
    void options.interrupted?.then(() => {
      this.#interrupted = true;
    });
  }

  /** Ms waited so far. */
  waited(): number {
    return Date.now() - this.#started;
  }

  /** Tells once whom the wait is for (`holder` is asked only the first time). */
  tell(holder: () => LockHolder | undefined): void {
    if (this.#told) return;
    this.#told = true;
    const who = holder();
    if (who !== undefined) this.#options.onWait?.(who, `waiting for ${describeWho(who)} to release ${this.#options.subject}`);
  }

  /**
   * Sleeps until the next look, never past the end of the wait.
   * @throws DeflowError `E_INTERRUPTED` when interrupted meanwhile
   */
  async pause(): Promise<void> {
    const pollMs = Math.min(this.#options.pollMs ?? 200, Math.max(1, this.#options.waitMs - this.waited()));
    await Promise.race([new Promise((resolve) => setTimeout(resolve, pollMs)), this.#options.interrupted ?? new Promise(() => {})]);
    if (this.#interrupted) throw new DeflowError('E_INTERRUPTED', `interrupted while waiting for ${this.#options.subject}`);
  }
}
