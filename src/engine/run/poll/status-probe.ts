/**
 * First polls planned before the run knows whether the job-status pool is limited. A run that
 * starts from an earlier run's estimates (poll-memory.ts) sends no scouts, so its first status
 * request would otherwise be the first job's poll at its predicted end, and every job accepted
 * before that would be planned as if status requests were scarce. One job (the probe) polls
 * early instead; its answer tells the governor what the pool is, and the first polls planned
 * meanwhile are re-planned then.
 */
export class StatusProbe {
  private claimed = false;
  private waiters: Array<() => void> = [];

  /** True for the first caller: that job's first poll goes out early. */
  claim(): boolean {
    if (this.claimed) return false;
    this.claimed = true;
    return true;
  }

  /** Resolves when a status answer arrives (a first poll planned before is re-planned then). */
  answered(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** A status request was answered: the pool's state is known; wakes the waiting first polls. */
  wake(): void {
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
