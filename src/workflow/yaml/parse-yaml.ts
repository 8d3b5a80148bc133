import { isAlias, isPair, isScalar, LineCounter, parseDocument, visit } from 'yaml';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import { YamlLocator } from './yaml-locator.js';

/** A parsed YAML file: its plain value, a locator for positions, and any problems. */
export interface ParsedYaml {
  /** The document as plain JSON-like data; `undefined` when it could not be built. */
  readonly value: unknown;
  readonly locator: YamlLocator;
  readonly errors: readonly WorkflowError[];
}

/**
 * The `yaml` package's default alias budget, kept on purpose: it refuses billion-laughs
 * documents before they are expanded (a large legitimate file can hit it; the README says so).
 */
export const MAX_ALIAS_COUNT = 100;

const MESSAGES: Readonly<Record<string, string>> = {
  DUPLICATE_KEY: 'duplicate key; each key may appear once in a mapping',
  MULTIPLE_DOCS: 'expected one YAML document, got several (remove the `---` separator)',
  TAG_RESOLVE_FAILED: 'unsupported YAML tag',
};

/**
 * Parses YAML with positions. Duplicate keys, several documents, unknown tags, complex keys
 * and excessive aliases are errors; `<<` merge keys are not applied (they stay ordinary keys).
 */
export function parseYaml(source: string, file: string): ParsedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, strict: true });
  const locator = new YamlLocator(file, source, doc, lines);
  const errors: WorkflowError[] = [];
  for (const problem of [...doc.errors, ...doc.warnings]) {
    const reason = MESSAGES[problem.code] ?? firstLine(problem.message);
    errors.push(new WorkflowError(WORKFLOW_CODES.yaml, locator.atOffset(problem.pos[0], locator.pathAtOffset(problem.pos[0])), reason));
  }
  // A key that is a mapping, a sequence or an alias cannot become a plain object key.
  visit(doc, {
    Pair(_key, pair) {
      if (isPair(pair) && pair.key !== null && !isScalar(pair.key)) {
        const offset = (pair.key as { range?: [number, number, number] }).range?.[0] ?? 0;
        errors.push(new WorkflowError(WORKFLOW_CODES.yaml, locator.atOffset(offset, []), 'expected a plain scalar key, got a collection or alias'));
      }
    },
  });
  if (errors.length > 0) return { value: undefined, locator, errors };
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), locator, errors };
  } catch (error) {
    const offset = firstAliasOffset(doc) ?? 0;
    const reason =
      error instanceof ReferenceError && /alias/i.test(error.message)
        ? `too many aliases (more than ${MAX_ALIAS_COUNT} expansions): refused as a possible resource exhaustion attack`
        : `cannot build the document (${firstLine(error instanceof Error ? error.message : String(error))})`;
    return { value: undefined, locator, errors: [new WorkflowError(WORKFLOW_CODES.yaml, locator.atOffset(offset, []), reason, { cause: error })] };
  }
}

function firstAliasOffset(doc: ReturnType<typeof parseDocument>): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (isAlias(node) && node.range) {
        offset = node.range[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return offset;
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}
