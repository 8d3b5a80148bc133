import { findTask } from '../../service/index.js';
import { compileExpression } from '../expressions/compile-expression.js';
import { compileTemplate } from '../expressions/compile-template.js';
import { hasExpression } from '../expressions/find-templates.js';
import type { DocPath } from '../format-path.js';
import type { CompiledExpression, Condition, ForEachDef, StepDef, StepSettings, ValueTemplate } from '../types.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { YamlLocator } from '../yaml/yaml-locator.js';
import { compileValue } from './compile-value.js';
import { entriesOf, isRecord, own } from './plain.js';
import { readSettings } from './read-settings.js';

/** Reads one step leniently: parts of the wrong shape are left out (the schema has reported them). */
export function buildStep(id: string, raw: unknown, defaults: StepSettings, locator: YamlLocator): StepDef {
  const path: DocPath = ['steps', id];
  const task = own(raw, 'task');
  const taskId = typeof task === 'string' ? task : '';
  const withValues = new Map<string, ValueTemplate>();
  for (const [name, value] of entriesOf(own(raw, 'with'))) withValues.set(name, compileValue(value, [...path, 'with', name], locator));
  const step: { -readonly [K in keyof StepDef]: StepDef[K] } = {
    ...readSettings(raw, defaults),
    id,
    path,
    task: taskId,
    spec: findTask(taskId),
    with: withValues,
    needs: readNeeds(own(raw, 'needs'), [...path, 'needs']),
    gather: own(raw, 'gather') === 'partial' ? 'partial' : 'all',
  };
  const forEach = readForEach(own(raw, 'for_each'), [...path, 'for_each'], locator);
  if (forEach) step.forEach = forEach;
  const condition = readCondition(own(raw, 'if'), [...path, 'if'], locator);
  if (condition) step.if = condition;
  const save = own(raw, 'save');
  if (typeof save === 'string' && save !== '') step.save = compileTemplate(save, [...path, 'save'], locator);
  return step;
}

function readNeeds(value: unknown, path: DocPath): StepDef['needs'] {
  if (typeof value === 'string') return [{ id: value, path }];
  if (!Array.isArray(value)) return [];
  return value.flatMap((id, index) => (typeof id === 'string' ? [{ id, path: [...path, index] }] : []));
}

function readForEach(value: unknown, path: DocPath, locator: YamlLocator): ForEachDef | undefined {
  if (typeof value === 'string') return { kind: 'step', step: value, path };
  if (!isRecord(value)) return undefined;
  const glob = own(value, 'glob');
  if (typeof glob === 'string') return { kind: 'glob', patterns: [compileTemplate(glob, [...path, 'glob'], locator)], path };
  if (Array.isArray(glob)) {
    const patterns = glob.flatMap((p, i) => (typeof p === 'string' ? [compileTemplate(p, [...path, 'glob', i], locator)] : []));
    return { kind: 'glob', patterns, path };
  }
  const items = own(value, 'items');
  if (Array.isArray(items)) return { kind: 'items', values: items, path };
  const file = own(value, 'file');
  if (typeof file === 'string') return { kind: 'file', file: compileTemplate(file, [...path, 'file'], locator), path };
  const matrix = own(value, 'matrix');
  if (isRecord(matrix)) {
    const axes = Object.entries(matrix).flatMap(([key, list]) => (Array.isArray(list) ? [[key, list] as const] : []));
    return { kind: 'matrix', axes, path };
  }
  return undefined;
}

function readCondition(value: unknown, path: DocPath, locator: YamlLocator): Condition | undefined {
  if (typeof value === 'boolean') return { kind: 'literal', value, path };
  if (typeof value !== 'string') return undefined;
  if (hasExpression(value)) {
    // As in Actions, a fully wrapped condition is unwrapped. Text around ${{ }} would make a
    // non-empty string, which is always true: refuse it instead of running every item.
    const template = compileTemplate(value, path, locator);
    const [first] = template.parts;
    if (template.single && first !== undefined && typeof first !== 'string') return { kind: 'expression', expression: first, path };
    const broken = template.parts.find((p): p is CompiledExpression => typeof p !== 'string' && p.error !== undefined);
    const location = broken?.location ?? locator.at(path);
    const error =
      broken?.error ??
      new WorkflowError(WORKFLOW_CODES.expression, location, 'expected one expression, got text around "${{ }}" (which would always be true); write the whole condition inside one "${{ }}" or without it');
    return { kind: 'expression', expression: { text: value, ast: undefined, references: [], location, error }, path };
  }
  // As in Actions, `if:` may leave out the ${{ }}.
  const source = locator.scalarSource(path);
  const quote = source && (source.raw.startsWith('"') || source.raw.startsWith("'")) ? 1 : 0;
  const expression = compileExpression(value, (offset) => (source ? locator.atOffset(source.start + quote + offset, path) : locator.at(path)));
  return { kind: 'expression', expression, path };
}
