import { expressionsOf } from '../expressions/compile-template.js';
import { stepExpressions } from '../graph/step-references.js';
import type { CompiledExpression, Workflow } from '../types.js';
import type { Rule } from './rule-context.js';

/** Every `${{ … }}` parses (syntax, known contexts and functions), wherever it stands. */
export const expressionsParse: Rule = {
  name: 'expressionsParse',
  check({ workflow, report }) {
    for (const expression of allExpressions(workflow)) if (expression.error) report(expression.error);
  },
};

/** Every expression of a workflow: steps (`with`, `if`, `save`), for_each paths, and `output`. */
export function* allExpressions(workflow: Workflow): Generator<CompiledExpression> {
  yield* expressionsOf(workflow.output);
  for (const step of workflow.steps) {
    for (const { expression } of stepExpressions(step)) yield expression;
    const source = step.forEach;
    if (source?.kind === 'glob') for (const pattern of source.patterns) yield* expressionsOf(pattern);
    if (source?.kind === 'file') yield* expressionsOf(source.file);
  }
}
