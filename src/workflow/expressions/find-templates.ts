/** A piece of a string: literal text or the text of one `${{ … }}`, with its offset in the string. */
export type TemplatePiece =
  | { readonly kind: 'text'; readonly text: string; readonly offset: number }
  | { readonly kind: 'expression'; readonly text: string; readonly offset: number; readonly occurrence: number };

/** Why a string could not be split. */
export interface TemplateSyntaxError {
  readonly offset: number;
  readonly message: string;
}

/** True when the string contains an expression opener. */
export function hasExpression(value: string): boolean {
  return value.includes('${{');
}

/**
 * Splits a string into text and `${{ … }}` pieces. A `}}` inside a single-quoted expression
 * string does not close the expression, as in GitHub Actions. `offset` of an expression piece
 * is where its text starts (after `${{`); `occurrence` counts the openers before it.
 */
export function findTemplates(value: string): TemplatePiece[] | TemplateSyntaxError {
  const pieces: TemplatePiece[] = [];
  let cursor = 0;
  let occurrence = 0;
  for (;;) {
    const open = value.indexOf('${{', cursor);
    if (open < 0) break;
    if (open > cursor) pieces.push({ kind: 'text', text: value.slice(cursor, open), offset: cursor });
    const start = open + 3;
    const close = findClose(value, start);
    if (close < 0) return { offset: open, message: 'expected "}}" to close "${{"' };
    pieces.push({ kind: 'expression', text: value.slice(start, close), offset: start, occurrence });
    occurrence++;
    cursor = close + 2;
  }
  if (cursor < value.length) pieces.push({ kind: 'text', text: value.slice(cursor), offset: cursor });
  return pieces;
}

function findClose(value: string, from: number): number {
  let inString = false;
  for (let i = from; i < value.length; i++) {
    const c = value[i];
    if (c === "'") {
      if (inString && value[i + 1] === "'") i++;
      else inString = !inString;
    } else if (!inString && c === '}' && value[i + 1] === '}') {
      return i;
    }
  }
  return -1;
}
