/**
 * The fast path of evaluation: an expression that is a plain property path (`item.text`,
 * `steps.transcribe.text`, `inputs.voice`) reads the scope's values as they are, without
 * converting the context to evaluator data. A run of 10,000 items renders `${{ item.value }}`
 * 10,000 times; through GitHub's evaluator each would first copy its item.
 *
 * The answer is the evaluator's, or {@link EVALUATE} when the path meets anything whose
 * semantics only the evaluator has (a list, a computed index, an object as the result).
 * Property names are matched as the evaluator's dictionaries match them: case-insensitively,
 * the first key in insertion order winning.
 */
import type { Expr } from '@actions/expressions';
import { ContextAccess, IndexAccess, Literal } from '@actions/expressions/ast';
import { CONTEXT_NAMES } from './compile-expression.js';
import type { ExpressionScope } from './expression-scope.js';

/** Says "use the evaluator". */
export const EVALUATE: unique symbol = Symbol('evaluate');

/** What a path reads: the context, then property names in lower case. */
interface PropertyPath {
  readonly context: keyof ExpressionScope;
  readonly properties: readonly string[];
}

/** Paths of the expressions seen so far (null: not a plain path). */
const paths = new WeakMap<Expr, PropertyPath | null>();

/** Where scope values come from: a context's value as expressions see it. */
export interface ScopeValues {
  context(key: keyof ExpressionScope): unknown;
}

/** The value of `ast` when it is a plain property path over `scope`, else {@link EVALUATE}. */
export function readPath(ast: Expr, scope: ScopeValues): unknown {
  let path = paths.get(ast);
  if (path === undefined) {
    path = propertyPath(ast) ?? null;
    paths.set(ast, path);
  }
  if (path === null) return EVALUATE;
  let value = scope.context(path.context);
  for (const property of path.properties) {
    if (value === null || value === undefined) return null;
    if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date) return EVALUATE;
    value = propertyOf(value as Readonly<Record<string, unknown>>, property);
  }
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number(value);
  return EVALUATE;
}

/** The first own enumerable property whose name matches `lower` case-insensitively, as a dictionary finds it. */
function propertyOf(object: Readonly<Record<string, unknown>>, lower: string): unknown {
  for (const key of Object.keys(object)) if (key === lower || key.toLowerCase() === lower) return object[key];
  return undefined;
}

function propertyPath(ast: Expr): PropertyPath | undefined {
  const properties: string[] = [];
  let node = ast;
  while (node instanceof IndexAccess) {
    const index = node.index;
    if (!(index instanceof Literal)) return undefined;
    const name = (index.literal as { value?: unknown }).value;
    if (typeof name !== 'string') return undefined;
    properties.push(name.toLowerCase());
    node = node.expr;
  }
  if (!(node instanceof ContextAccess)) return undefined;
  const context = node.name.lexeme.toLowerCase();
  if (!isContextName(context)) return undefined;
  return { context, properties: properties.reverse() };
}

function isContextName(name: string): name is keyof ExpressionScope {
  return (CONTEXT_NAMES as readonly string[]).includes(name);
}
