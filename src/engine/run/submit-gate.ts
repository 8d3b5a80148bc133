/**
 * Runs a hook between the rate governor's permit and the request going out. The engine
 * journals a submission's intent there: after any wait for a rate window (so a crash while
 * waiting leaves nothing ambiguous) and before the POST (so a crash after it is known to be
 * ambiguous). The client knows nothing of this: it calls `acquire` as for any governor.
 */
import { type AcquireRequest, type GovernorPermit, RateGovernor, type RateGovernorOptions } from '../../client/index.js';

/**
 * A governor that can run a hook between a request's permit and its POST. The job runner
 * journals a submission's intent there; any governor (this one, or the engine's Redis-backed
 * one) that implements it gets the same guarantee.
 */
export interface SubmitGate {
  /** Runs `hook` once, when the first request carrying `signal` is granted a permit. */
  arm(signal: AbortSignal, hook: () => Promise<void>): void;
  /** Forgets an armed hook that never ran (the request failed before its permit). */
  disarm(signal: AbortSignal): void;
}

/** Whether `governor` runs submission hooks. */
export function isSubmitGate(governor: unknown): governor is SubmitGate {
  const candidate = governor as Partial<SubmitGate> | null;
  return typeof candidate?.arm === 'function' && typeof candidate.disarm === 'function';
}

/**
 * The hooks armed on a governor, and what `acquire` does with them once a permit is granted:
 * runs the one armed for the request's signal (once), and gives the permit back if it throws.
 * Both governors (this process's and the Redis-backed one) hold one of these.
 */
export class SubmitHooks implements SubmitGate {
  private readonly hooks = new WeakMap<AbortSignal, () => Promise<void>>();

  arm(signal: AbortSignal, hook: () => Promise<void>): void {
    this.hooks.set(signal, hook);
  }

  disarm(signal: AbortSignal): void {
    this.hooks.delete(signal);
  }

  /** `permit`, once the hook armed for `request`'s signal (if any) has run. */
  async afterPermit(request: AcquireRequest, permit: GovernorPermit): Promise<GovernorPermit> {
    const signal = request.signal;
    const hook = signal === undefined ? undefined : this.hooks.get(signal);
    if (signal === undefined || hook === undefined) return permit;
    this.hooks.delete(signal);
    try {
      await hook();
    } catch (error) {
      permit.abandon(false);
      throw error;
    }
    return permit;
  }
}

/** A rate governor that runs the hook armed for a request's signal once its permit is granted. */
export class GatedGovernor extends RateGovernor implements SubmitGate {
  private readonly hooks = new SubmitHooks();

  constructor(options: RateGovernorOptions = {}) {
    super(options);
  }

  /** Runs `hook` once, when the first request carrying `signal` is granted a permit. */
  arm(signal: AbortSignal, hook: () => Promise<void>): void {
    this.hooks.arm(signal, hook);
  }

  /** Forgets an armed hook that never ran (the request failed before its permit). */
  disarm(signal: AbortSignal): void {
    this.hooks.disarm(signal);
  }

  override async acquire(request: AcquireRequest): Promise<GovernorPermit> {
    return this.hooks.afterPermit(request, await super.acquire(request));
  }
}
