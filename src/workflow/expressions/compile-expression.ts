import { ExpressionError, Lexer, Parser } from '@actions/expressions';
import { didYouMean } from '../did-you-mean.js';
import type { CompiledExpression } from '../types.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import { collectReferences, type LocateInExpression, offsetOfPosition } from './collect-references.js';

/** The contexts of the workflow language, in the order messages list them. */
export const CONTEXT_NAMES = ['inputs', 'item', 'steps', 'run'] as const;

/** Functions GitHub Actions' evaluator provides (names are case-insensitive). */
export const FUNCTION_NAMES = ['contains', 'startsWith', 'endsWith', 'format', 'join', 'toJSON', 'fromJSON', 'case'] as const;

/**
 * Parses the text of one `${{ … }}` with GitHub's own expression parser. A syntax error, an
 * unknown context or function becomes `error` (at its position); nothing is evaluated here.
 */
export function compileExpression(text: string, locate: LocateInExpression): CompiledExpression {
  const location = locate(leadingSpace(text));
  try {
    const tokens = new Lexer(text).lex().tokens;
    const ast = new Parser(tokens, [...CONTEXT_NAMES], []).parse() as ReturnType<Parser['parse']> | undefined;
    if (!ast) return failed(text, location, new WorkflowError(WORKFLOW_CODES.expression, location, 'expected an expression inside "${{ }}", got nothing'));
    return { text, ast, references: collectReferences(ast, text, locate), location };
  } catch (error) {
    const { offset, reason } = describeSyntaxError(text, error);
    return failed(text, location, new WorkflowError(WORKFLOW_CODES.expression, locate(offset), reason, { cause: error }));
  }
}

function failed(text: string, location: CompiledExpression['location'], error: WorkflowError): CompiledExpression {
  return { text, ast: undefined, references: [], location, error };
}

function describeSyntaxError(text: string, error: unknown): { offset: number; reason: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ExpressionError) {
    const offset = offsetOfPosition(text, error.pos.line, error.pos.column);
    const symbol = /: '(.*)'$/s.exec(message)?.[1] ?? '';
    if (message.startsWith('Unrecognized named-value')) {
      return { offset, reason: `unknown context "${symbol}"; expected one of ${CONTEXT_NAMES.join(', ')}${didYouMean(symbol, CONTEXT_NAMES)}` };
    }
    if (message.startsWith('Unrecognized function')) {
      return { offset, reason: `unknown function "${symbol}"; expected one of ${FUNCTION_NAMES.join(', ')}${didYouMean(symbol, FUNCTION_NAMES)}` };
    }
    if (message.startsWith('Unexpected end of expression')) return { offset, reason: `unexpected end of expression after "${symbol}"` };
    if (message.startsWith('Too few parameters')) return { offset, reason: `too few arguments for ${symbol}()` };
    if (message.startsWith('Too many parameters')) return { offset, reason: `too many arguments for ${symbol}()` };
    if (message.startsWith('Even number of parameters')) return { offset, reason: `expected an odd number of arguments for ${symbol}()` };
    if (message.startsWith('Exceeded max expression depth')) return { offset, reason: 'expression nested too deeply (more than 50 levels)' };
    return { offset, reason: `unexpected "${symbol}"` };
  }
  const lexed = /^Unexpected symbol: '(.*)'\. Located at position (\d+) within expression/s.exec(message);
  if (lexed) {
    const symbol = lexed[1] ?? '';
    const offset = Math.max(0, Number(lexed[2]) - 1);
    return { offset, reason: symbol.startsWith("'") ? 'unterminated string (expected a closing \')' : `unexpected symbol "${symbol}"` };
  }
  if (message.includes('ExceededMaxLength')) return { offset: 0, reason: 'expression longer than 21000 characters' };
  return { offset: 0, reason: `cannot parse the expression (${message})` };
}

function leadingSpace(text: string): number {
  const match = /^\s*/.exec(text);
  return match ? Math.min(match[0].length, Math.max(0, text.length - 1)) : 0;
}
