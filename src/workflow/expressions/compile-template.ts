import type { DocPath } from '../format-path.js';
import type { CompiledExpression, Template } from '../types.js';
import { WORKFLOW_CODES, type WorkflowLocation, WorkflowError } from '../workflow-error.js';
import type { YamlLocator } from '../yaml/yaml-locator.js';
import { compileExpression } from './compile-expression.js';
import { findTemplates } from './find-templates.js';

/**
 * Compiles a string value that may hold `${{ … }}` expressions. Problems (an unclosed
 * expression, a syntax error) stay on the compiled expressions for the rules to report.
 */
export function compileTemplate(value: string, path: DocPath, locator: YamlLocator): Template {
  const locate = locateInScalar(value, path, locator);
  const pieces = findTemplates(value);
  if (!Array.isArray(pieces)) {
    const location = locate(pieces.offset);
    const error = new WorkflowError(WORKFLOW_CODES.expression, location, pieces.message);
    const broken: CompiledExpression = { text: value.slice(pieces.offset), ast: undefined, references: [], location, error };
    return { source: value, parts: [broken], single: false, path };
  }
  const parts = pieces.map((piece) =>
    piece.kind === 'text' ? piece.text : compileExpression(piece.text, (offset) => locate(piece.offset + offset)),
  );
  const single = parts.length === 1 && typeof parts[0] !== 'string';
  return { source: value, parts, single, path };
}

/** The compiled expressions of a template. */
export function expressionsOf(template: Template): CompiledExpression[] {
  return template.parts.filter((p): p is CompiledExpression => typeof p !== 'string');
}

/**
 * Maps an offset in a scalar's value to a file location. Quotes, escapes and block
 * indentation make value and source offsets differ, so the mapping anchors on the k-th `${{`,
 * which appears verbatim in both unless it was escaped (then the scalar's start answers).
 */
function locateInScalar(value: string, path: DocPath, locator: YamlLocator): (offset: number) => WorkflowLocation {
  const source = locator.scalarSource(path);
  const valueOpeners = openers(value);
  const rawOpeners = source ? openers(source.raw) : [];
  const aligned = source !== undefined && rawOpeners.length === valueOpeners.length;
  const quoted = source !== undefined && (source.raw.startsWith('"') || source.raw.startsWith("'"));
  return (offset) => {
    if (!source) return locator.at(path);
    let k = -1;
    for (let i = 0; i < valueOpeners.length && valueOpeners[i]! <= offset; i++) k = i;
    if (aligned && k >= 0) return locator.atOffset(source.start + rawOpeners[k]! + (offset - valueOpeners[k]!), path);
    if (k < 0 && source.raw.length > 0 && !source.raw.startsWith('|') && !source.raw.startsWith('>')) {
      return locator.atOffset(source.start + (quoted ? 1 : 0) + Math.min(offset, source.raw.length - 1), path);
    }
    return locator.atOffset(source.start, path);
  };
}

function openers(text: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf('${{'); i >= 0; i = text.indexOf('${{', i + 3)) found.push(i);
  return found;
}
