import { isRecord } from '../build/plain.js';

/**
 * One item as expressions see it (`item.*`). Built on demand from the list's source values, so
 * a list of 100,000 items holds 100,000 strings or records, not 100,000 objects like this one.
 */
export interface ItemContext {
  readonly index: number;
  /** The item itself: the path, string, number, record or matrix combination. */
  readonly value: unknown;
  /** The path (glob items), the string (string items), or an object item's `path` field; null otherwise. */
  readonly path: string | null;
  /** Last path segment: `a.mp3`. */
  readonly name: string | null;
  /** Name without extension: `a`. */
  readonly stem: string | null;
  /** Extension without the dot: `mp3`. */
  readonly ext: string | null;
  /** Folder part: `episodes`. */
  readonly dir: string | null;
  readonly [field: string]: unknown;
}

/** The property names every item has. */
export const STANDARD_ITEM_FIELDS = ['index', 'value', 'path', 'name', 'stem', 'ext', 'dir'] as const;

/** The items a step fans out over. Compact: lookups are O(1) and build one context at a time. */
export interface ItemList {
  readonly length: number;
  /** For the plan: `glob "episodes/*.mp3"`, `items`, `file prompts.csv`, `matrix lang × voice`. */
  readonly describe: string;
  /** Fields object items carry beyond the standard ones (keys of records, matrix keys, CSV columns). */
  readonly fields: ReadonlySet<string>;
  /** Item `k` (0-based); throws a RangeError outside 0..length-1. */
  at(k: number): ItemContext;
  /** `at(k).value` without building the context (item keys are read for every item on resume). */
  valueAt(k: number): unknown;
}

/** Items that are file paths (relative to the workflow folder, `/`-separated). */
export function createPathItems(paths: readonly string[], describe: string): ItemList {
  return {
    length: paths.length,
    describe,
    fields: new Set(),
    at: (k) => pathContext(checkedAt(paths, k), paths[k]!),
    valueAt: (k) => paths[checkedAt(paths, k)],
  };
}

/** Items given as values: strings, numbers, booleans or records. */
export function createValueItems(values: readonly unknown[], describe: string): ItemList {
  const fields = new Set<string>();
  for (const value of values) if (isRecord(value)) for (const key of Object.keys(value)) fields.add(key);
  return createSourceItems({ length: values.length, get: (k) => values[checkedAt(values, k)], fields }, describe);
}

/** Values held elsewhere (an items file's compact lines or columns), decoded by `get` when asked for. */
export interface ValueSource {
  readonly length: number;
  /** Value `k`; throws a RangeError outside 0..length-1. */
  get(k: number): unknown;
  readonly fields: ReadonlySet<string>;
}

/** Items whose values come from `source`. */
export function createSourceItems(source: ValueSource, describe: string): ItemList {
  return {
    length: source.length,
    describe,
    fields: source.fields,
    at: (k) => {
      const value = source.get(k);
      if (isRecord(value)) return recordContext(k, value);
      if (typeof value === 'string') return pathContext(k, value);
      return { index: k, value, path: null, name: null, stem: null, ext: null, dir: null };
    },
    valueAt: (k) => source.get(k),
  };
}

/** The cross product of `axes`, first key outermost, decoded from the index (nothing is stored per item). */
export function createMatrixItems(axes: readonly (readonly [string, readonly unknown[]])[]): ItemList {
  const length = axes.reduce((n, [, values]) => n * values.length, axes.length === 0 ? 0 : 1);
  return {
    length,
    describe: `matrix ${axes.map(([key, values]) => `${key}(${values.length})`).join(' × ')}`,
    fields: new Set(axes.map(([key]) => key)),
    at: (k) => recordContext(k, combination(k)),
    valueAt: (k) => combination(k),
  };

  function combination(k: number): Record<string, unknown> {
    if (!(Number.isInteger(k) && k >= 0 && k < length)) throw new RangeError(`item ${k} is outside 0..${length - 1}`);
    const values: Record<string, unknown> = {};
    let rest = k;
    for (let a = axes.length - 1; a >= 0; a--) {
      const [key, axis] = axes[a]!;
      values[key] = axis[rest % axis.length];
      rest = Math.floor(rest / axis.length);
    }
    return values;
  }
}

function recordContext(index: number, record: Record<string, unknown>): ItemContext {
  const path = typeof record.path === 'string' ? record.path : null;
  const derived = path === null ? { path: null, name: null, stem: null, ext: null, dir: null } : pathContext(index, path);
  // A JSON `__proto__` key is an own field: Object.assign would set the prototype with it.
  if (Object.hasOwn(record, '__proto__')) return { ...derived, ...record, index, value: record };
  // Object.assign, not spread: spreading a record into a new object is some 60 times slower
  // in V8, and this runs for every item of every rule (a million items: 9 s against 0.13 s).
  const context: Record<string, unknown> = Object.assign(derived, record);
  context.index = index;
  context.value = record;
  return context as unknown as ItemContext;
}

/** Splits a `/`-separated path by hand: this runs once per item the engine touches, so it avoids node:path's checks. */
function pathContext(index: number, path: string): ItemContext {
  const slash = path.lastIndexOf('/');
  const name = slash < 0 ? path : path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const hasExt = dot > 0;
  return {
    index,
    value: path,
    path,
    name,
    stem: hasExt ? name.slice(0, dot) : name,
    ext: hasExt ? name.slice(dot + 1) : '',
    dir: slash < 0 ? '.' : slash === 0 ? '/' : path.slice(0, slash),
  };
}

function checkedAt(list: readonly unknown[], k: number): number {
  if (!(Number.isInteger(k) && k >= 0 && k < list.length)) throw new RangeError(`item ${k} is outside 0..${list.length - 1}`);
  return k;
}
