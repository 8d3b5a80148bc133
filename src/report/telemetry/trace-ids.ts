/**
 * Trace and span ids of a run. The trace id is derived from the run id, so every session of a
 * run (tonight's interrupted run resumed tomorrow) adds its spans to the same trace; a W3C
 * `traceparent` from the environment (as CI systems set it) makes the run a child of the
 * caller's span instead.
 */
import { createHash } from 'node:crypto';

/** 32 hex digits, never all zero: the first 16 bytes of sha256("deflow-run:" + runId). */
export function traceIdOfRun(runId: string): string {
  const hex = createHash('sha256').update(`deflow-run:${runId}`).digest('hex').slice(0, 32);
  return /^0+$/.test(hex) ? `${hex.slice(0, 31)}1` : hex;
}

export interface ParentContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly traceState?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The caller's span from `TRACEPARENT` (and `TRACESTATE`), per the W3C Trace Context format;
 * null when absent or malformed (a malformed one is ignored, as the specification says).
 */
export function parentFromEnvironment(env: NodeJS.ProcessEnv): ParentContext | null {
  const raw = env['TRACEPARENT']?.trim().toLowerCase();
  if (!raw) return null;
  const match = TRACEPARENT.exec(raw);
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return null;
  const state = env['TRACESTATE']?.trim();
  return { traceId: match[2]!, spanId: match[3]!, traceFlags: Number.parseInt(match[4]!, 16) & 1, ...(state ? { traceState: state } : {}) };
}
