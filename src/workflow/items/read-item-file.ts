import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Options as CsvOptions, Parser as CsvParser } from 'csv-parse';
import { formatBytes } from '../yaml/read-source-file.js';

/** Largest for_each file read (one item per line or row). */
export const MAX_ITEM_FILE_BYTES = 256 * 1024 * 1024;

/** Items read from a file, or where and why the file could not be read. */
export type ItemFileResult =
  | { readonly ok: true; readonly values: readonly unknown[] }
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
    return await readLines(path, maxItems, extension === '.txt' ? (line) => ({ ok: true, value: line }) : parseJsonLine);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? String(error)})`);
  }
}

type LineValue = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/** Reads the non-empty lines of `path` one chunk at a time, each turned into an item by `toValue`. */
async function readLines(path: string, maxItems: number, toValue: (line: string) => LineValue): Promise<ItemFileResult> {
  const values: unknown[] = [];
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let lineNumber = 0;
  let first = true;
  const take = (raw: string): ItemFileResult | undefined => {
    lineNumber++;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return undefined;
    if (values.length >= maxItems) return overCap(lineNumber, maxItems);
    const parsed = toValue(line);
    if (!parsed.ok) return failAt(lineNumber, parsed.reason);
    values.push(parsed.value);
    return undefined;
  };
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let text = rest + decoder.write(chunk);
      if (first && text !== '') {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        const failed = take(text.slice(start, end));
        if (failed) return failed;
        start = end + 1;
      }
      rest = text.slice(start);
    }
    const failed = take(rest + decoder.end());
    if (failed) return failed;
  } finally {
    stream.destroy();
  }
  return { ok: true, values };
}

/** Deepest nesting of an item's value (expressions walk it recursively). */
export const MAX_ITEM_NESTING = 64;

function parseJsonLine(line: string): LineValue {
  const depth = bracketDepth(line);
  if (depth > MAX_ITEM_NESTING) return { ok: false, reason: `expected at most ${MAX_ITEM_NESTING} levels of nesting in an item, got ${depth}` };
  try {
    return { ok: true, value: JSON.parse(line) as unknown };
  } catch (error) {
    return { ok: false, reason: `expected one JSON value per line (${error instanceof Error ? error.message : String(error)})` };
  }
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

async function readCsv(path: string, maxItems: number, parse: (options: CsvOptions) => CsvParser): Promise<ItemFileResult> {
  let duplicate: string | undefined;
  const values: Record<string, string>[] = [];
  // The line each record ends on (the parser's own count has read ahead by then).
  let recordLine = 1;
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    on_record: (record: string[], context: { lines: number }) => {
      recordLine = context.lines;
      return record;
    },
    columns: (header: string[]) => {
      duplicate = header.find((name, i) => header.indexOf(name) !== i);
      if (duplicate !== undefined) throw new Error(`duplicate column "${duplicate}"`);
      return header;
    },
  });
  const source = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      if (values.length >= maxItems) return overCap(recordLine, maxItems);
      values.push(record);
    }
    return { ok: true, values };
  } catch (error) {
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

function overCap(line: number, maxItems: number): ItemFileResult {
  return failAt(line, `expected at most ${maxItems} items, got more: item ${maxItems + 1} is on this line (the file is refused without reading further)`);
}

function fail(reason: string): ItemFileResult {
  return { ok: false, reason };
}

function failAt(line: number, reason: string): ItemFileResult {
  return { ok: false, reason, at: { line, col: 1 } };
}
