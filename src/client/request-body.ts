import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DeflowError } from '../common/deflow-error.js';
import type { BodyKind } from '../service/types.js';
import { type FieldValue, isFileRef, isStreamRef, type RequestFields } from './field-values.js';
import { encodeMultipartStream, type MultipartPart } from './multipart-stream.js';

/** A request body ready for undici, built fresh for every attempt (streams are single-use). */
export interface EncodedBody {
  readonly body: string | AsyncIterable<Uint8Array>;
  readonly contentType: string;
  readonly contentLength: number | undefined;
}

/** Encodes `fields` as JSON or multipart, as the endpoint's catalogue entry says. */
export async function encodeBody(kind: BodyKind, fields: RequestFields): Promise<EncodedBody> {
  if (kind === 'json') return { body: JSON.stringify(toJson(fields, '')), contentType: 'application/json', contentLength: undefined };
  return encodeStreamParts(flattenMultipart(fields));
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
  | { kind: 'stream'; name: string; open: () => AsyncIterable<Uint8Array>; size: number | undefined; filename: string; contentType: string };

/**
 * Multipart field names follow the PHP convention the service reads: `name[]` for lists of
 * scalars and files, `name[i][key]` for lists of objects; booleans travel as "true"/"false".
 */
function flattenMultipart(fields: RequestFields): FlatPart[] {
  const parts: FlatPart[] = [];
  const visit = (name: string, value: FieldValue): void => {
    if (value === null || value === undefined) return;
    if (isStreamRef(value)) {
      const open = value.stream;
      parts.push({
        kind: 'stream',
        name,
        open: () => open() as AsyncIterable<Uint8Array>,
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

async function encodeStreamParts(parts: FlatPart[]): Promise<EncodedBody> {
  const framed: MultipartPart[] = [];
  for (const part of parts) {
    if (part.kind === 'text') framed.push(part);
    else if (part.kind === 'stream') framed.push(part);
    else {
      const size = await statFile(part.path);
      framed.push({ ...part, kind: 'stream', size, open: () => createReadStream(part.path, { highWaterMark: FILE_CHUNK_BYTES }) });
    }
  }
  const encoded = encodeMultipartStream(framed);
  return { body: encoded.body, contentType: encoded.contentType, contentLength: encoded.contentLength };
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
  try {
    return (await stat(path)).size;
  } catch (error) {
    throw inputFileError(path, error);
  }
}

function inputFileError(path: string, cause: unknown): DeflowError {
  const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'cannot be read';
  return new DeflowError('E_INPUT_FILE', `${path}: ${reason}`, { cause, details: { path } });
}

function isPlainObject(value: unknown): value is { readonly [key: string]: FieldValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isFileRef(value) && !isStreamRef(value);
}
