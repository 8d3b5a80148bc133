/** Who holds a lock, as lock-file.ts reads it from a lock record. */

/** Who holds a lock, as its file says. */
export interface LockHolder {
  readonly pid: number;
  readonly hostname: string;
  readonly acquiredAt: string;
  /** False only when the holder provably no longer runs (dead, a zombie, its pid reused, the host rebooted). */
  readonly alive: boolean;
  /** The holder runs on another host: its liveness cannot be checked, so it counts as alive. */
  readonly foreign: boolean;
}

/** `another deflow run (pid N, started T)`. */
export function describeWho(holder: LockHolder): string {
  return `another deflow run (pid ${holder.pid}${holder.foreign ? ` on ${holder.hostname}` : ''}, started ${holder.acquiredAt || 'at an unknown time'})`;
}
