import type { ErrorObject } from 'ajv';
import { didYouMean } from '../did-you-mean.js';
import { DURATION_PATTERN, IDENTIFIER_PATTERN } from './build-workflow-schema.js';
import { jsonType, listOr, showValue } from './json-type.js';

/** An ajv error turned into a document path and a message saying what was expected and found. */
export interface SchemaProblem {
  readonly path: readonly (string | number)[];
  /** Point at the key rather than the value (unknown keys, bad ids). */
  readonly key: boolean;
  readonly reason: string;
}

const PATTERN_MESSAGES: Readonly<Record<string, string>> = {
  [IDENTIFIER_PATTERN]: 'an identifier (a letter or _, then letters, digits, _ or -)',
  [DURATION_PATTERN]: 'a duration such as 30, "90s", "10m" or "2h"',
  '^https://': 'an https:// URL',
  '^https?://': 'a URL starting with http:// or https://',
};

/** Maps one ajv error (compiled with `verbose: true`) against the validated document. */
export function mapAjvError(error: ErrorObject, document: unknown): SchemaProblem {
  const path = decodePath(error.instancePath, document);
  const data = error.data;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return at(path, `expected ${listOr(toList(params.type))}, got ${jsonType(data)}`);
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]) ?? [];
      const hint = typeof data === 'string' ? didYouMean(data, allowed.map(String)) : '';
      return at(path, `expected one of ${allowed.map(showValue).join(', ')}, got ${showValue(data)}${hint}`);
    }
    case 'const':
      return at(path, `expected ${showValue(params.allowedValue)}, got ${showValue(data)}`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return at(path, `expected ${BOUND_WORDS[error.keyword]} ${String(params.limit)}, got ${showValue(data)}`);
    case 'minLength':
    case 'maxLength':
      return at(path, `expected ${BOUND_WORDS[error.keyword]} ${count(params.limit, 'character')}, got ${count(String(data).length, 'character')}`);
    case 'minItems':
    case 'maxItems':
      return at(path, `expected ${BOUND_WORDS[error.keyword]} ${count(params.limit, 'item')}, got ${count((data as unknown[]).length, 'item')}`);
    case 'minProperties':
    case 'maxProperties':
      return at(path, propertiesMessage(error, path, data));
    case 'required':
      return at(path, `missing required key "${String(params.missingProperty)}"`);
    case 'additionalProperties':
      return additional(path, String(params.additionalProperty), error.parentSchema);
    case 'uniqueItems':
      return at(path, `expected no duplicates, got ${showValue((data as unknown[])[Number(params.i)])} twice`);
    case 'pattern':
      return patternProblem(error, path, data, String(params.pattern));
    default:
      return at(path, error.message ?? `does not match the schema (${error.keyword})`);
  }
}

const BOUND_WORDS: Readonly<Record<string, string>> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'more than',
  exclusiveMaximum: 'less than',
  minLength: 'at least',
  maxLength: 'at most',
  minItems: 'at least',
  maxItems: 'at most',
  minProperties: 'at least',
  maxProperties: 'at most',
};

function patternProblem(error: ErrorObject, path: (string | number)[], data: unknown, pattern: string): SchemaProblem {
  const expected = PATTERN_MESSAGES[pattern] ?? `a string matching /${pattern}/`;
  const propertyName = (error as { propertyName?: string }).propertyName;
  if (propertyName !== undefined) return { path: [...path, propertyName], key: true, reason: `expected ${expected}, got ${showValue(propertyName)}` };
  return at(path, `expected ${expected}, got ${showValue(data)}`);
}

function propertiesMessage(error: ErrorObject, path: (string | number)[], data: unknown): string {
  const keys = Object.keys(data ?? {});
  const limit = Number((error.params as { limit: number }).limit);
  if (path[path.length - 1] === 'for_each') {
    return `expected exactly one of glob, items, file, matrix, got ${keys.length === 0 ? 'none' : keys.join(', ')}`;
  }
  const noun = path.length === 1 && path[0] === 'steps' ? 'step' : 'key';
  return `expected ${BOUND_WORDS[error.keyword]} ${count(limit, noun)}, got ${keys.length}`;
}

function additional(path: (string | number)[], name: string, parentSchema: unknown): SchemaProblem {
  const known = Object.keys((parentSchema as { properties?: object } | undefined)?.properties ?? {});
  if (name === '<<') return { path: [...path, name], key: true, reason: 'merge keys (<<) are not supported; repeat the keys or use an input' };
  const hint = didYouMean(name, known);
  const list = hint === '' && known.length > 0 && known.length <= 12 ? `; expected one of ${known.join(', ')}` : '';
  return { path: [...path, name], key: true, reason: `unknown key${hint}${list}` };
}

function at(path: (string | number)[], reason: string): SchemaProblem {
  return { path, key: false, reason };
}

function toList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : String(value).split(',');
}

function count(n: unknown, noun: string): string {
  return `${String(n)} ${noun}${Number(n) === 1 ? '' : 's'}`;
}

/** Turns `/steps/a/needs/0` into `['steps', 'a', 'needs', 0]`, numbering only where the document has a list. */
export function decodePath(pointer: string, document: unknown): (string | number)[] {
  if (pointer === '') return [];
  const path: (string | number)[] = [];
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      const index = Number(segment);
      path.push(index);
      node = node[index];
    } else {
      path.push(segment);
      node = node !== null && typeof node === 'object' && Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return path;
}
