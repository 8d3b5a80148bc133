import { createReadStream, stat as statCallback } from 'node:fs';
import { extname } from 'node:path';
import { finished } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { promisify } from 'node:util';
import type { Options as CsvOptions, Parser as CsvParser } from 'csv-parse';
import { isRecord } from '../build/plain.js';
import { formatBytes } from '../yaml/read-source-file.js';
import { LineStore } from './line-store.js';

/** node:fs's stat, not node:fs/promises' (which costs every start a dozen more built-ins). */
const stat = promisify(statCallback);

/** Largest for_each file read (one item per line or row). */
export const MAX_ITEM_FILE_BYTES = 256 * 1024 * 1024;

/**
 * The items of a file, held compactly and decoded on demand: text and JSON lines as their text
 * (a `LineStore`), CSV as one array of strings a column. `get(k)` returns a fresh value each call.
 */
export interface ItemValues {
  readonly length: number;
  get(k: number): unknown;
  /** Keys of the record items (JSON lines' object keys, CSV columns). */
  readonly fields: ReadonlySet<string>;
}

/** Items read from a file, or where and why the file could not be read. */
export type ItemFileResult =
  | { readonly ok: true; readonly values: ItemValues }
  | {
      readonly ok: false;
      readonly reason: string;
      /** Set when the problem is inside the file's content (a bad JSON line, a CSV row, the item past the cap). */
      readonly at?: { readonly line: number; readonly col: number };
    };

/** The formats `for_each: { file }` reads, by extension. */
export const ITEM_FILE_EXTENSIONS = ['.txt', '.jsonl', '.ndjson', '.csv'] as const;

/** Bytes read at a time. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Reads a list of items as a stream: `.txt` gives one string per non-empty line, `.jsonl` one
 * value per non-empty line, `.csv` one record per row keyed by the header row (values stay
 * strings). At most `maxItems` are read: the file is refused at the first item past the cap,
 * without reading the rest, so neither its time nor its memory depends on what follows.
 */
export async function readItemFile(path: string, maxItems: number): Promise<ItemFileResult> {
  const extension = extname(path).toLowerCase();
  if (!(ITEM_FILE_EXTENSIONS as readonly string[]).includes(extension)) {
    return fail(`expected a .txt, .jsonl or .csv file, got "${extension || 'no extension'}"`);
  }
  try {
    const info = await stat(path);
    if (!info.isFile()) return fail('expected a file, got a directory');
    if (info.size > MAX_ITEM_FILE_BYTES) return fail(`expected at most ${formatBytes(MAX_ITEM_FILE_BYTES)}, got ${formatBytes(info.size)}`);
    // Loaded for the first CSV: most item files are text or JSON lines.
    if (extension === '.csv') return await readCsv(path, maxItems, (await import('csv-parse')).parse);
    if (extension === '.txt') return await readLines(path, maxItems, () => undefined, (line) => line);
    return await readLines(path, maxItems, checkJsonLine, (line) => JSON.parse(line) as unknown);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? String(error)})`);
  }
}

/** Checks one non-empty line: undefined when it is an item, the reason otherwise; `fields` gathers record keys. */
type LineCheck = (line: string, fields: Set<string>) => string | undefined;

/**
 * Reads the non-empty lines of `path` one chunk at a time, each checked by `check` and kept as
 * text; `decode` turns a kept line into its item when it is asked for.
 */
async function readLines(path: string, maxItems: number, check: LineCheck, decode: (line: string) => unknown): Promise<ItemFileResult> {
  const store = new LineStore();
  const fields = new Set<string>();
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let lineNumber = 0;
  let first = true;
  let text = '';
  let chunkKept = false;
  const take = (start: number, end: number): ItemFileResult | undefined => {
    lineNumber++;
    if (end > start && text.charCodeAt(end - 1) === 13) end--; // CRLF
    const line = text.slice(start, end);
    if (line.trim() === '') return undefined;
    if (store.length >= maxItems) return overCap(lineNumber, maxItems);
    const failed = check(line, fields);
    if (failed !== undefined) return failAt(lineNumber, failed);
    if (!chunkKept) {
      store.addChunk(text);
      chunkKept = true;
    }
    store.add(start, end);
    return undefined;
  };
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      text = rest + decoder.write(chunk);
      chunkKept = false;
      if (first && text !== '') {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        const failed = take(start, end);
        if (failed) return failed;
        start = end + 1;
      }
      rest = text.slice(start);
    }
    text = rest + decoder.end();
    chunkKept = false;
    const failed = take(0, text.length);
    if (failed) return failed;
  } finally {
    stream.destroy();
  }
  return { ok: true, values: { length: store.length, get: (k) => decode(store.line(k)), fields } };
}

/** Deepest nesting of an item's value (expressions walk it recursively). */
export const MAX_ITEM_NESTING = 64;

function checkJsonLine(line: string, fields: Set<string>): string | undefined {
  const depth = bracketDepth(line);
  if (depth > MAX_ITEM_NESTING) return `expected at most ${MAX_ITEM_NESTING} levels of nesting in an item, got ${depth}`;
  let value: unknown;
  try {
    value = JSON.parse(line) as unknown;
  } catch (error) {
    return `expected one JSON value per line (${error instanceof Error ? error.message : String(error)})`;
  }
  if (isRecord(value)) for (const key of Object.keys(value)) fields.add(key);
  return undefined;
}

/** How deep `[` and `{` nest in a JSON line, outside strings. */
function bracketDepth(line: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) deepest = Math.max(deepest, ++depth);
    else if (c === 93 || c === 125) depth--;
  }
  return deepest;
}

/** Thrown from the CSV parser's record hook at the first record past the cap. */
class OverCap extends Error {
  constructor(readonly line: number) {
    super('over the cap');
  }
}

/** Reads a CSV into one array of strings a column (records are built when asked for). */
async function readCsv(path: string, maxItems: number, parse: (options: CsvOptions) => CsvParser): Promise<ItemFileResult> {
  let duplicate: string | undefined;
  let header: readonly string[] = [];
  let columns: ColumnStore[] = [];
  let keys: string[] = [];
  let count = 0;
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    // Each record is taken apart here and dropped (null): nothing is queued in the stream.
    // With `columns`, the record the hook gets is an object keyed by them (the types say an array).
    on_record: ((record: Record<string, string>, context: { lines: number }) => {
      // The line the record ends on (the parser's own count has read ahead by the time a stream reader sees it).
      if (count >= maxItems) throw new OverCap(context.lines);
      for (let c = 0; c < keys.length; c++) columns[c]!.push(record[keys[c]!]!);
      count++;
      return null;
    }) as unknown as NonNullable<CsvOptions['on_record']>,
    columns: (names: string[]) => {
      duplicate = names.find((name, i) => names.indexOf(name) !== i);
      if (duplicate !== undefined) throw new Error(`duplicate column "${duplicate}"`);
      header = names;
      columns = names.map(() => new ColumnStore());
      // The parser keys its records by these (a column named "__proto__" would be lost as a key).
      keys = names.map((_, c) => `c${c}`);
      return keys;
    },
  });
  const source = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);
  try {
    parser.resume();
    await finished(parser);
    const cells = columns.map((column) => column.done());
    return { ok: true, values: { length: count, get: (k) => csvRecord(header, cells, k), fields: new Set(header) } };
  } catch (error) {
    if (error instanceof OverCap) return overCap(error.line, maxItems);
    // A read error (EACCES, EIO) is the file's, not the CSV's: the caller says so.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && !code.startsWith('CSV_')) throw error;
    const line = Number((error as { lines?: number }).lines ?? 1);
    const message = error instanceof Error ? error.message : String(error);
    return failAt(duplicate === undefined ? Math.max(1, line) : 1, `cannot read the CSV (${message})`);
  } finally {
    source.destroy();
    parser.destroy();
  }
}

/** A CSV column's cells, joined into one string every `CELLS_A_CHUNK` cells (a million cells are not a million strings). */
class ColumnStore {
  private readonly cells = new LineStore();
  private pending: string[] = [];

  push(cell: string): void {
    this.pending.push(cell);
    if (this.pending.length === CELLS_A_CHUNK) this.flush();
  }

  done(): LineStore {
    this.flush();
    return this.cells;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.cells.addChunk(this.pending.join(''));
    let start = 0;
    for (const cell of this.pending) this.cells.add(start, (start += cell.length));
    this.pending = [];
  }
}

const CELLS_A_CHUNK = 4096;

function csvRecord(header: readonly string[], columns: readonly LineStore[], k: number): Record<string, string> {
  const record: Record<string, string> = {};
  for (let c = 0; c < header.length; c++) {
    const name = header[c]!;
    const cell = columns[c]!.line(k);
    // A "__proto__" column is a field like any other, never the record's prototype.
    if (name === '__proto__') Object.defineProperty(record, name, { value: cell, enumerable: true, writable: true, configurable: true });
    else record[name] = cell;
  }
  return record;
}

function overCap(line: number, maxItems: number): ItemFileResult {
  return failAt(line, `expected at most ${maxItems} items, got more: item ${maxItems + 1} is on this line (the file is refused without reading further)`);
}

function fail(reason: string): ItemFileResult {
  return { ok: false, reason };
}

function failAt(line: number, reason: string): ItemFileResult {
  return { ok: false, reason, at: { line, col: 1 } };
}
