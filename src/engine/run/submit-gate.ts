/**
 * Runs a hook between the rate governor's permit and the request going out. The engine
 * journals a submission's intent there: after any wait for a rate window (so a crash while
 * waiting leaves nothing ambiguous) and before the POST (so a crash after it is known to be
 * ambiguous). The client knows nothing of this: it calls `acquire` as for any governor.
 */
import { type AcquireRequest, type GovernorPermit, RateGovernor, type RateGovernorOptions } from '../../client/index.js';

/** A rate governor that runs the hook armed for a request's signal once its permit is granted. */
export class GatedGovernor extends RateGovernor {
  private readonly hooks = new WeakMap<AbortSignal, () => Promise<void>>();

  constructor(options: RateGovernorOptions = {}) {
    super(options);
  }

  /** Runs `hook` once, when the first request carrying `signal` is granted a permit. */
  arm(signal: AbortSignal, hook: () => Promise<void>): void {
    this.hooks.set(signal, hook);
  }

  /** Forgets an armed hook that never ran (the request failed before its permit). */
  disarm(signal: AbortSignal): void {
    this.hooks.delete(signal);
  }

  override async acquire(request: AcquireRequest): Promise<GovernorPermit> {
    const permit = await super.acquire(request);
    const hook = request.signal === undefined ? undefined : this.hooks.get(request.signal);
    if (hook === undefined) return permit;
    this.hooks.delete(request.signal!);
    try {
      await hook();
    } catch (error) {
      permit.abandon(false);
      throw error;
    }
    return permit;
  }
}
