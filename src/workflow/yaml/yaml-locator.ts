import { type Document, isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import { type DocPath, formatPath } from '../format-path.js';
import type { WorkflowLocation } from '../workflow-error.js';

/** A 1-based line and column. */
export interface LineCol {
  readonly line: number;
  readonly col: number;
}

/** The raw text of a scalar in the source, for positions inside it (expressions). */
export interface ScalarSource {
  /** Offset of the scalar's first character (a quote or `|` included). */
  readonly start: number;
  /** The scalar as written, quotes and block indicators included. */
  readonly raw: string;
}

/**
 * Maps document paths back to positions in the YAML source. Built once per parsed file and
 * kept on the workflow, so every later rule can say where a value came from.
 */
export class YamlLocator {
  readonly file: string;
  readonly #doc: Document.Parsed | undefined;
  readonly #lines: LineCounter | undefined;
  readonly #source: string;

  constructor(file: string, source: string, doc?: Document.Parsed, lines?: LineCounter) {
    this.file = file;
    this.#source = source;
    this.#doc = doc;
    this.#lines = lines;
  }

  /** The position of an offset in the source. */
  positionOfOffset(offset: number): LineCol {
    if (!this.#lines) return { line: 1, col: 1 };
    const { line, col } = this.#lines.linePos(Math.max(0, Math.min(offset, this.#source.length)));
    return { line, col };
  }

  /**
   * The position of the value at `path` (or of its key, with `key: true`). When the path does
   * not exist the deepest existing ancestor answers, so a missing key points at its parent.
   */
  position(path: DocPath, options: { key?: boolean } = {}): LineCol {
    const found = this.#walk(path, options.key === true);
    const offset = found?.range?.[0];
    return offset === undefined ? { line: 1, col: 1 } : this.positionOfOffset(offset);
  }

  /** A full location for an error at `path`. */
  at(path: DocPath, options: { key?: boolean } = {}): WorkflowLocation {
    return { file: this.file, ...this.position(path, options), path: formatPath(path) };
  }

  /** A location at an explicit offset, reported under `path`. */
  atOffset(offset: number, path: DocPath): WorkflowLocation {
    return { file: this.file, ...this.positionOfOffset(offset), path: formatPath(path) };
  }

  /** The raw source of the scalar at `path`, when it is one. */
  scalarSource(path: DocPath): ScalarSource | undefined {
    const node = this.#walk(path, false);
    if (!(node && isScalar(node) && node.range)) return undefined;
    const [start, end] = node.range;
    return { start, raw: this.#source.slice(start, end) };
  }

  /** The path of the deepest key or item whose source contains `offset` (for parser errors). */
  pathAtOffset(offset: number): DocPath {
    const path: (string | number)[] = [];
    let node: unknown = this.#doc?.contents;
    while (node) {
      let next: unknown;
      if (isMap(node)) {
        for (const pair of node.items) {
          const start = rangeOf(pair.key)?.[0];
          const end = rangeOf(pair.value)?.[2] ?? rangeOf(pair.key)?.[2];
          if (start === undefined || end === undefined || offset < start || offset >= end) continue;
          path.push(keyText(pair.key));
          const valueStart = rangeOf(pair.value)?.[0];
          next = valueStart !== undefined && offset >= valueStart ? pair.value : undefined;
          break;
        }
      } else if (isSeq(node)) {
        node.items.forEach((item, index) => {
          const range = rangeOf(item);
          if (range && offset >= range[0] && offset < range[2]) {
            path.push(index);
            next = item;
          }
        });
      }
      node = next;
    }
    return path;
  }

  #walk(path: DocPath, key: boolean): Node | undefined {
    let node: unknown = this.#doc?.contents ?? undefined;
    let last: Node | undefined = isNode(node) ? node : undefined;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      const isLast = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && keyText(p.key) === String(segment));
        if (!pair) return last;
        if (isLast && key && isNode(pair.key)) return pair.key;
        node = pair.value ?? pair.key;
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
      } else {
        return last;
      }
      if (!isNode(node)) return last;
      last = node;
    }
    return last;
  }
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

function rangeOf(value: unknown): readonly [number, number, number] | undefined {
  return isNode(value) ? (value.range ?? undefined) : undefined;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'range' in value;
}
