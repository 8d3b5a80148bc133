import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { pipeline, Readable, Transform } from 'node:stream';
import type FormDataClass from 'form-data';
import { DeflowError } from '../common/index.js';
import type { BodyKind } from '../service/index.js';
import { type FieldValue, isFileRef, isStreamRef, type RequestFields } from './field-values.js';

/** A request body ready for undici, built fresh for every attempt (streams are single-use). */
export interface EncodedBody {
  readonly body: string | Buffer | Readable;
  readonly contentType: string;
  readonly contentLength: number | undefined;
}

/** Encodes `fields` as JSON or multipart, as the endpoint's catalogue entry says. */
export async function encodeBody(kind: BodyKind, fields: RequestFields): Promise<EncodedBody> {
  if (kind === 'json') return { body: JSON.stringify(toJson(fields, '')), contentType: 'application/json', contentLength: undefined };
  const parts = await sizeFiles(flattenMultipart(fields));
  // Loaded on the first upload: most runs never send a file.
  // (A CommonJS package: import() gives its exports as `default`, which its `export =` types do not show.)
  const FormData = ((await import('form-data')) as unknown as { default: typeof FormDataClass }).default;
  return encodeMultipart(parts, FormData);
}

/**
 * File parts are read in 16 KiB pieces. Every piece is a fresh buffer that only a garbage
 * collection frees, and V8 collects young buffers by count of allocations as much as by
 * bytes: 64 KiB pieces (fs and Blob streams' default) let ~30 MiB of spent buffers pile up
 * between collections, 16 KiB pieces keep the whole upload under ~40 MiB (bench/upload.ts),
 * still at tens of MB/s, far above any real uplink.
 */
const FILE_CHUNK_BYTES = 16 * 1024;

type FlatPart =
  | { kind: 'text'; name: string; value: string }
  | { kind: 'file'; name: string; path: string; filename: string; contentType: string }
  | { kind: 'stream'; name: string; open: () => Readable | AsyncIterable<Uint8Array>; size: number | undefined; filename: string; contentType: string };

/**
 * Multipart field names follow the PHP convention the service reads: `name[]` for lists of
 * scalars and files, `name[i][key]` for lists of objects; booleans travel as "true"/"false".
 */
function flattenMultipart(fields: RequestFields): FlatPart[] {
  const parts: FlatPart[] = [];
  const visit = (name: string, value: FieldValue): void => {
    if (value === null || value === undefined) return;
    if (isStreamRef(value)) {
      parts.push({
        kind: 'stream',
        name,
        open: value.stream,
        size: value.size,
        filename: value.filename,
        contentType: value.contentType ?? 'application/octet-stream',
      });
    } else if (isFileRef(value)) {
      parts.push({
        kind: 'file',
        name,
        path: value.path,
        filename: value.filename ?? basename(value.path),
        contentType: value.contentType ?? 'application/octet-stream',
      });
    } else if (Array.isArray(value)) {
      value.forEach((item: FieldValue, index) => {
        visit(isPlainObject(item) ? `${name}[${index}]` : `${name}[]`, item);
      });
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) visit(`${name}[${key}]`, item);
    } else {
      parts.push({ kind: 'text', name, value: String(value) });
    }
  };
  for (const [name, value] of Object.entries(fields)) visit(name, value);
  return parts;
}

/** A part whose byte length is settled (`undefined`: unknown, so the body goes chunked). */
type SizedPart = Exclude<FlatPart, { kind: 'file' }> | (Extract<FlatPart, { kind: 'file' }> & { size: number });

/** Every file is stat'ed before any is opened, so a missing one leaves no stream open behind it. */
async function sizeFiles(parts: FlatPart[]): Promise<SizedPart[]> {
  return Promise.all(parts.map(async (part) => (part.kind === 'file' ? { ...part, size: await statFile(part.path) } : part)));
}

/**
 * form-data frames the parts and pulls each stream only as undici drains the socket, so memory
 * stays flat whatever the size. The form carries a Content-Length only when every part's
 * length is known; otherwise undici sends it chunked.
 */
function encodeMultipart(parts: SizedPart[], FormData: typeof FormDataClass): EncodedBody {
  const form = new FormData();
  const sources: Readable[] = [];
  // undici destroys the form when the exchange ends or fails; the form does not pass that on.
  form.once('close', () => {
    for (const source of sources) source.destroy();
  });
  for (const part of parts) {
    if (part.kind === 'text') {
      form.append(part.name, part.value);
      continue;
    }
    const source = openPart(part);
    sources.push(source);
    const known = part.size === undefined ? {} : { knownLength: part.size };
    form.append(part.name, source, { filename: part.filename, contentType: part.contentType, ...known });
  }
  const contentType = String(form.getHeaders()['content-type']);
  if (sources.length === 0) {
    // Text fields only: the body is sent as the bytes it is. Streamed, the form ends within
    // undici's first read, before undici listens on the socket for the write's end, and each
    // such request left an `error` and a `drain` listener on the kept-alive socket for good
    // (MaxListenersExceededWarning after 10 submits on one connection).
    const bytes = form.getBuffer();
    return { body: bytes, contentType, contentLength: bytes.length };
  }
  return { body: form, contentType, contentLength: form.hasKnownLength() ? form.getLengthSync() : undefined };
}

function openPart(part: Exclude<SizedPart, { kind: 'text' }>): Readable {
  if (part.kind === 'file') return checkLength(createReadStream(part.path, { highWaterMark: FILE_CHUNK_BYTES }), part.name, part.size);
  const opened = part.open();
  const source = opened instanceof Readable ? opened : Readable.from(opened, { objectMode: false, highWaterMark: FILE_CHUNK_BYTES });
  return part.size === undefined ? source : checkLength(source, part.name, part.size);
}

/**
 * Passes `source` through, failing as soon as it gives more than `declared` bytes or ends
 * short of it: either would corrupt the body the Content-Length promised.
 */
function checkLength(source: Readable, name: string, declared: number): Readable {
  let seen = 0;
  const mismatch = (more: string): Error => new Error(`multipart part ${name}: the stream gave ${seen}${more} bytes, ${declared} were declared`);
  const counter = new Transform({
    // Holds nothing back: each piece goes straight on, so the check adds no buffer to the chain.
    highWaterMark: 0,
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > declared) callback(mismatch(' or more'));
      else callback(null, chunk);
    },
    flush(callback) {
      callback(seen === declared ? null : mismatch(''));
    },
  });
  // The counter re-raises the source's errors; form-data listens to the counter alone.
  return pipeline(source, counter, () => {});
}

function toJson(value: FieldValue, where: string): unknown {
  if (isFileRef(value) || isStreamRef(value)) {
    throw new DeflowError('E_INPUT_FILE_IN_JSON', `${where || 'body'}: this endpoint takes JSON, so it cannot carry a file`, {
      details: { field: where },
    });
  }
  if (Array.isArray(value)) return value.map((v: FieldValue, i) => toJson(v, `${where}[${i}]`));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = toJson(item, where ? `${where}.${key}` : key);
    return out;
  }
  return value;
}

async function statFile(path: string): Promise<number> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw inputFileError(path, error);
  }
  if (!info.isFile()) throw new DeflowError('E_INPUT_FILE', `${path}: expected a regular file, got a folder, FIFO, socket or device`, { details: { path } });
  return info.size;
}

function inputFileError(path: string, cause: unknown): DeflowError {
  const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'cannot be read';
  return new DeflowError('E_INPUT_FILE', `${path}: ${reason}`, { cause, details: { path } });
}

function isPlainObject(value: unknown): value is { readonly [key: string]: FieldValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isFileRef(value) && !isStreamRef(value);
}
