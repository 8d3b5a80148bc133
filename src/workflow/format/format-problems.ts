import type { WorkflowError } from '../workflow-error.js';

/** Error lines as printed: `file:line:col: path: message`. */
export function formatErrors(errors: readonly WorkflowError[]): string[] {
  return errors.map((e) => e.message);
}

/** Warning lines: `file:line:col: warning: path: message`. */
export function formatWarnings(warnings: readonly WorkflowError[]): string[] {
  return warnings.map((w) => `${w.location.file}:${w.location.line}:${w.location.col}: warning: ${w.location.path}: ${w.reason}`);
}
