import type { WorkflowError } from '../workflow-error.js';

/** Most problem lines printed; the rest are counted (`--json` lists every one). */
export const MAX_PROBLEM_LINES = 100;

/**
 * Error lines as printed: `file:line:col: path: message`, one per problem (one per bad item),
 * at most `max`, then a line that counts the rest.
 */
export function formatErrors(errors: readonly WorkflowError[], max = MAX_PROBLEM_LINES): string[] {
  const lines = errors.slice(0, max).map((e) => e.message);
  const rest = errors.length - lines.length;
  if (rest > 0) lines.push(`... and ${rest} more problem${rest === 1 ? '' : 's'} (${errors.length} in all; --json lists every one)`);
  return lines;
}

/** Warning lines: `file:line:col: warning: path: message`. */
export function formatWarnings(warnings: readonly WorkflowError[]): string[] {
  return warnings.map((w) => `${w.location.file}:${w.location.line}:${w.location.col}: warning: ${w.location.path}: ${w.reason}`);
}
