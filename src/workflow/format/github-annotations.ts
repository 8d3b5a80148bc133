import { formatWorkflowCommand } from '../../common/index.js';
import type { WorkflowError } from '../workflow-error.js';

/** GitHub shows at most 10 error and 10 warning annotations per step. */
export const MAX_ANNOTATIONS = 10;

/**
 * Annotation lines for problems of one kind: `::error file=…,line=…,col=…,title=E_…::path: message`
 * (escaped as @actions/core does) for the first ten, then one `::notice::` saying how many
 * more there are, since GitHub would drop them silently.
 */
export function formatAnnotations(kind: 'error' | 'warning', problems: readonly WorkflowError[]): string[] {
  const lines = problems
    .slice(0, MAX_ANNOTATIONS)
    .map((p) => formatWorkflowCommand(kind, { file: p.location.file, line: p.location.line, col: p.location.col, title: p.code }, `${p.location.path}: ${p.reason}`));
  const more = problems.length - MAX_ANNOTATIONS;
  if (more > 0) lines.push(formatWorkflowCommand('notice', {}, `${more} more ${kind}${more === 1 ? '' : 's'} not annotated; see the log`));
  return lines;
}
