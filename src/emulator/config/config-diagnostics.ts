/**
 * Located config errors: `file:line:col: path: expected …, got …`. Positions come from the
 * YAML document the file was parsed into (JSON parses as YAML too); a config object given
 * in code has no positions and reports its path alone.
 */
import type { ErrorObject } from 'ajv';
import { type Document, isMap, isNode, type LineCounter, type Node } from 'yaml';

/** Where a config came from, to locate errors in it. */
export interface ConfigOrigin {
  /** File name as the user gave it, or a label such as `emulator config`. */
  readonly file: string;
  readonly document?: Document;
  readonly lineCounter?: LineCounter;
}

/** One problem of a config. */
export interface ConfigProblem {
  /** `rate_limits.generation.rpm`, `keys[0].role`. */
  readonly path: string;
  readonly message: string;
  readonly line?: number;
  readonly col?: number;
}

type Segment = string | number;

/** Turns an ajv error into a located problem. */
export function describeSchemaError(error: ErrorObject, origin: ConfigOrigin, data: unknown): ConfigProblem {
  const segments = pointerSegments(error.instancePath);
  const value = valueAt(data, segments);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const siblings = Object.keys((error.parentSchema?.properties as Record<string, unknown> | undefined) ?? {});
      return locate(origin, [...segments, key], 'key', `unknown key${didYouMean(key, siblings)}`);
    }
    case 'required':
      return locate(origin, segments, 'value', `expected key "${String(params.missingProperty)}", got none`);
    case 'type':
      return locate(origin, segments, 'value', `expected ${String(params.type).replace(',', ' or ')}, got ${describeValue(value)}`);
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return locate(origin, segments, 'value', `expected one of ${allowed}, got ${describeValue(value)}`);
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return locate(origin, segments, 'value', `expected a number ${String(params.comparison)} ${String(params.limit)}, got ${describeValue(value)}`);
    case 'format':
      return locate(origin, segments, 'value', `expected an ISO 8601 ${String(params.format)}, got ${describeValue(value)}`);
    default:
      return locate(origin, segments, 'value', `expected a value that ${error.message ?? 'is valid'}, got ${describeValue(value)}`);
  }
}

/** A problem found by a semantic rule at `segments`. */
export function locate(origin: ConfigOrigin, segments: readonly Segment[], target: 'key' | 'value', message: string): ConfigProblem {
  const path = formatPath(segments);
  const position = findPosition(origin, segments, target);
  return position ? { path, message, ...position } : { path, message };
}

/** `file:line:col: path: message`. */
export function formatProblem(origin: ConfigOrigin, problem: ConfigProblem): string {
  const where = problem.line === undefined ? origin.file : `${origin.file}:${problem.line}:${problem.col ?? 1}`;
  return `${where}: ${problem.path || '(root)'}: ${problem.message}`;
}

/** `; did you mean "x"?` when a known name is close to `name`, else ''. */
export function didYouMean(name: string, known: readonly string[]): string {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const threshold = Math.max(2, Math.floor(name.length / 3));
  return best !== null && bestDistance <= threshold ? `; did you mean "${best}"?` : '';
}

/** A short description of a value for "got …". */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') return `${Number.isInteger(value) ? 'integer' : 'number'} ${value}`;
  return `${typeof value} ${String(value)}`;
}

function pointerSegments(pointer: string): Segment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function formatPath(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

function valueAt(data: unknown, segments: readonly Segment[]): unknown {
  let current = data;
  for (const s of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[s];
  }
  return current;
}

function findPosition(origin: ConfigOrigin, segments: readonly Segment[], target: 'key' | 'value'): { line: number; col: number } | null {
  const { document, lineCounter } = origin;
  if (!document || !lineCounter) return null;
  let node: Node | null = null;
  if (target === 'key' && segments.length > 0) {
    const parent = segments.length === 1 ? document.contents : document.getIn(segments.slice(0, -1), true);
    const last = segments[segments.length - 1];
    if (isMap(parent)) {
      const pair = parent.items.find((p) => isNode(p.key) && String((p.key as { value?: unknown }).value) === String(last));
      if (pair && isNode(pair.key)) node = pair.key;
    }
  }
  if (!node) {
    // Walk down as far as the document goes: a missing key points at its parent.
    for (let n = segments.length; n >= 0 && !node; n--) {
      const candidate = n === 0 ? document.contents : document.getIn(segments.slice(0, n), true);
      if (isNode(candidate)) node = candidate;
    }
  }
  const offset = node?.range?.[0];
  if (offset === undefined) return null;
  const pos = lineCounter.linePos(offset);
  return { line: pos.line, col: pos.col };
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
