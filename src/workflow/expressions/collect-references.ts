import type { Expr } from '@actions/expressions';
import { Binary, ContextAccess, FunctionCall, Grouping, IndexAccess, Literal, Logical, Star, Unary } from '@actions/expressions/ast';
import type { Token } from '@actions/expressions/lexer';
import type { ContextName, Reference } from '../types.js';
import type { WorkflowLocation } from '../workflow-error.js';

/** Maps an offset inside the expression text to a file location. */
export type LocateInExpression = (offset: number) => WorkflowLocation;

interface Chain {
  readonly context: Token;
  readonly segments: { name: string | null; token: Token | undefined }[];
  readonly dynamic: Expr[];
}

/**
 * Every context use in a parsed expression, outermost chain first: `steps.a.text` is one
 * reference, and `steps[inputs.which]` is a `steps` reference with a computed index plus an
 * `inputs.which` reference.
 */
export function collectReferences(ast: Expr, text: string, locate: LocateInExpression): Reference[] {
  const references: Reference[] = [];
  const visit = (node: Expr, bare: boolean): void => {
    if (node instanceof ContextAccess || node instanceof IndexAccess) {
      const chain = chainOf(node);
      if (chain) {
        references.push(toReference(chain, bare, text, locate));
        for (const index of chain.dynamic) visit(index, false);
        return;
      }
    }
    if (node instanceof IndexAccess) {
      visit(node.expr, false);
      if (!(node.index instanceof Star)) visit(node.index, false);
    } else if (node instanceof Unary) visit(node.expr, false);
    else if (node instanceof Binary) {
      visit(node.left, false);
      visit(node.right, false);
    } else if (node instanceof Logical) for (const arg of node.args) visit(arg, false);
    else if (node instanceof Grouping) visit(node.group, bare);
    else if (node instanceof FunctionCall) for (const arg of node.args) visit(arg, false);
  };
  visit(ast, true);
  return references;
}

function chainOf(node: Expr): Chain | undefined {
  if (node instanceof ContextAccess) return { context: node.name, segments: [], dynamic: [] };
  if (!(node instanceof IndexAccess)) return undefined;
  const base = chainOf(node.expr);
  if (!base) return undefined;
  const index = node.index;
  if (index instanceof Star) base.segments.push({ name: '*', token: undefined });
  else if (index instanceof Literal && isPropertyLiteral(index)) base.segments.push({ name: literalName(index), token: index.token });
  else {
    base.segments.push({ name: null, token: undefined });
    base.dynamic.push(index);
  }
  return base;
}

function isPropertyLiteral(literal: Literal): boolean {
  const value = (literal.literal as { value?: unknown }).value;
  return typeof value === 'string' || typeof value === 'number';
}

function literalName(literal: Literal): string {
  return String((literal.literal as { value?: unknown }).value);
}

function toReference(chain: Chain, bare: boolean, text: string, locate: LocateInExpression): Reference {
  const start = offsetOfToken(text, chain.context);
  const locations = [locate(start)];
  let last = start;
  for (const segment of chain.segments) {
    if (segment.token) last = offsetOfToken(text, segment.token);
    locations.push(locate(last));
  }
  return {
    context: chain.context.lexeme.toLowerCase() as ContextName,
    path: chain.segments.map((s) => s.name),
    locations,
    bare,
  };
}

/** Offset of a token's start in the expression text (the lexer counts lines and columns from 0). */
export function offsetOfToken(text: string, token: Token): number {
  return offsetOfPosition(text, token.range.start.line, token.range.start.column);
}

/** Offset of a 0-based line and column in `text`. */
export function offsetOfPosition(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 0; l < line; l++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) break;
    offset = next + 1;
  }
  return Math.min(offset + column, text.length);
}
