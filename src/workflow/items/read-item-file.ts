import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import type { parse as parseCsv } from 'csv-parse/sync';
import { formatBytes } from '../yaml/read-source-file.js';

/** Largest for_each file read (one item per line or row). */
export const MAX_ITEM_FILE_BYTES = 256 * 1024 * 1024;

/** Items read from a file, or where and why the file could not be read. */
export type ItemFileResult =
  | { readonly ok: true; readonly values: readonly unknown[] }
  | {
      readonly ok: false;
      readonly reason: string;
      /** Set when the problem is inside the file's content (a bad JSON line, a CSV row). */
      readonly at?: { readonly line: number; readonly col: number };
    };

/** The formats `for_each: { file }` reads, by extension. */
export const ITEM_FILE_EXTENSIONS = ['.txt', '.jsonl', '.ndjson', '.csv'] as const;

/**
 * Reads a list of items: `.txt` gives one string per non-empty line, `.jsonl` one value per
 * non-empty line, `.csv` one record per row keyed by the header row (values stay strings).
 */
export async function readItemFile(path: string): Promise<ItemFileResult> {
  const extension = extname(path).toLowerCase();
  if (!(ITEM_FILE_EXTENSIONS as readonly string[]).includes(extension)) {
    return fail(`expected a .txt, .jsonl or .csv file, got "${extension || 'no extension'}"`);
  }
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) return fail('expected a file, got a directory');
    if (info.size > MAX_ITEM_FILE_BYTES) return fail(`expected at most ${formatBytes(MAX_ITEM_FILE_BYTES)}, got ${formatBytes(info.size)}`);
    text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? String(error)})`);
  }
  if (extension === '.txt') return { ok: true, values: lines(text).map(([, line]) => line) };
  // Loaded for the first CSV: most item files are text or JSON lines.
  if (extension === '.csv') return readCsv(text, (await import('csv-parse/sync')).parse);
  return readJsonLines(text);
}

function lines(text: string): [number, string][] {
  const out: [number, string][] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() !== '') out.push([index + 1, line]);
  });
  return out;
}

/** Deepest nesting of an item's value (expressions walk it recursively). */
export const MAX_ITEM_NESTING = 64;

function readJsonLines(text: string): ItemFileResult {
  const values: unknown[] = [];
  for (const [number, line] of lines(text)) {
    const depth = bracketDepth(line);
    if (depth > MAX_ITEM_NESTING) return failAt(number, `expected at most ${MAX_ITEM_NESTING} levels of nesting in an item, got ${depth}`);
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      return failAt(number, `expected one JSON value per line (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  return { ok: true, values };
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

function readCsv(text: string, parse: typeof parseCsv): ItemFileResult {
  let duplicate: string | undefined;
  try {
    const values = parse<Record<string, string>>(text, {
      bom: true,
      skip_empty_lines: true,
      columns: (header: string[]) => {
        duplicate = header.find((name, i) => header.indexOf(name) !== i);
        if (duplicate !== undefined) throw new Error(`duplicate column "${duplicate}"`);
        return header;
      },
    });
    return { ok: true, values };
  } catch (error) {
    const line = Number((error as { lines?: number }).lines ?? 1);
    const message = error instanceof Error ? error.message : String(error);
    return failAt(duplicate === undefined ? Math.max(1, line) : 1, `cannot read the CSV (${message})`);
  }
}

function fail(reason: string): ItemFileResult {
  return { ok: false, reason };
}

function failAt(line: number, reason: string): ItemFileResult {
  return { ok: false, reason, at: { line, col: 1 } };
}
