import { compileTemplate } from '../expressions/compile-template.js';
import { hasExpression } from '../expressions/find-templates.js';
import type { DocPath } from '../format-path.js';
import type { ValueTemplate } from '../types.js';
import type { YamlLocator } from '../yaml/yaml-locator.js';
import { isRecord } from './plain.js';

/** Compiles a `with` value: strings holding `${{ }}` become templates; lists and maps without any stay literal. */
export function compileValue(value: unknown, path: DocPath, locator: YamlLocator): ValueTemplate {
  if (typeof value === 'string') {
    return hasExpression(value) ? { kind: 'template', template: compileTemplate(value, path, locator), path } : { kind: 'literal', value, path };
  }
  if (Array.isArray(value)) {
    const items = value.map((item, index) => compileValue(item, [...path, index], locator));
    return items.every((item) => item.kind === 'literal') ? { kind: 'literal', value, path } : { kind: 'array', items, path };
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).map(([key, entry]) => [key, compileValue(entry, [...path, key], locator)] as const);
    return entries.every(([, entry]) => entry.kind === 'literal') ? { kind: 'literal', value, path } : { kind: 'object', entries, path };
  }
  return { kind: 'literal', value, path };
}

/** Every template inside a value tree. */
export function* templatesOf(value: ValueTemplate): Generator<Extract<ValueTemplate, { kind: 'template' }>> {
  if (value.kind === 'template') yield value;
  else if (value.kind === 'array') for (const item of value.items) yield* templatesOf(item);
  else if (value.kind === 'object') for (const [, entry] of value.entries) yield* templatesOf(entry);
}
