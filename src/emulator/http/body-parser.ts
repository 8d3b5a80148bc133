/**
 * Request bodies as Laravel reads them (docs/deapi-contract.md#requests-and-answers): JSON, multipart (files
 * streamed to temporary files) and url-encoded, on every POST whatever its endpoint's usual
 * kind; an empty form part is absent; `name[]` and `a[0][b]` build arrays and objects; an
 * unreadable body is an empty one (validation then answers 422). Bodies over 75 MB are
 * refused (413) once read off the wire, so that clients still writing see an answer.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import busboy from 'busboy';
import type { ParsedBody, UploadedFile } from '../types.js';

/** Largest accepted request body (public docs: > 75 MB → 413). */
export const MAX_BODY_BYTES = 75 * 1024 * 1024;
/** Past this many bytes a refused body is no longer drained; the connection is dropped. */
const MAX_DRAIN_BYTES = 512 * 1024 * 1024;

/** The body was larger than {@link MAX_BODY_BYTES}; it has been drained. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

const EMPTY: ParsedBody = { kind: 'empty', values: {}, files: {} };

/** Reads and parses the body of `req`; uploaded files go to `tempDir`. */
export async function parseBody(req: IncomingMessage, tempDir: string): Promise<ParsedBody> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) return parseMultipart(req, tempDir);
  const raw = await readAll(req);
  if (raw.length === 0) return EMPTY;
  const text = raw.toString('utf8');
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const values: Record<string, unknown> = {};
    for (const [name, value] of new URLSearchParams(text)) if (value !== '') assignField(values, name, value);
    return { kind: 'urlencoded', values, files: {} };
  }
  // JSON, or no declared type at all: Laravel reads an undeclared body as JSON when it is.
  try {
    const parsed: unknown = JSON.parse(text);
    const values = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    return { kind: 'json', values, files: {} };
  } catch {
    return { kind: type.includes('json') ? 'json' : 'empty', values: {}, files: {} };
  }
}

/** Deletes the temporary files of a parsed body. */
export async function discardUploads(body: ParsedBody): Promise<void> {
  const paths = Object.values(body.files).flatMap((list) => list.map((f) => f.path));
  await Promise.all(paths.map((p) => rm(p, { force: true })));
}

/** Reads and drops the rest of a request body, so that an early answer reaches the client. */
export function drainRequest(req: IncomingMessage): Promise<void> {
  if (req.complete || req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > MAX_DRAIN_BYTES) {
        req.destroy();
        resolve();
      }
    });
    req.once('end', () => resolve());
    req.once('close', () => resolve());
    req.once('error', () => resolve());
    req.resume();
  });
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        chunks.length = 0;
        void drainRequest(req).then(() => reject(new BodyTooLargeError()));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (size <= MAX_BODY_BYTES) resolve(Buffer.concat(chunks));
    });
    req.once('error', (error) => reject(error));
  });
}

function parseMultipart(req: IncomingMessage, tempDir: string): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    const values: Record<string, unknown> = {};
    const files: Record<string, UploadedFile[]> = {};
    const writes: Promise<UploadedFile>[] = [];
    const open: { path: string; close: () => void }[] = [];
    let size = 0;
    let failed = false;
    let parser: busboy.Busboy;
    const abandon = (outcome: 'too-large' | 'unreadable'): void => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => {});
      parser.destroy();
      for (const file of open) file.close();
      void Promise.all(open.map((file) => rm(file.path, { force: true })))
        .then(() => drainRequest(req))
        .then(() => (outcome === 'too-large' ? reject(new BodyTooLargeError()) : resolve({ kind: 'multipart', values: {}, files: {} })));
    };
    try {
      parser = busboy({ headers: req.headers, limits: { fieldSize: MAX_BODY_BYTES, fileSize: MAX_BODY_BYTES }, defParamCharset: 'utf8' });
    } catch {
      // No boundary: Laravel sees no input at all.
      void drainRequest(req).then(() => resolve({ kind: 'multipart', values: {}, files: {} }));
      return;
    }
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) abandon('too-large');
    });
    parser.on('field', (name, value) => {
      if (value !== '') assignField(values, name, value);
    });
    parser.on('file', (name, stream, info) => {
      const path = join(tempDir, randomUUID());
      writes.push(
        new Promise<UploadedFile>((resolveFile, rejectFile) => {
          let bytes = 0;
          const out = createWriteStream(path);
          open.push({
            path,
            close: () => {
              stream.unpipe(out);
              stream.resume();
              out.destroy();
            },
          });
          stream.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          stream.pipe(out);
          out.on('error', rejectFile);
          out.on('finish', () => {
            const field = fieldRoot(name);
            const file: UploadedFile = { field, filename: info.filename ?? '', path, size: bytes, declaredType: info.mimeType || null };
            resolveFile(file);
          });
        }),
      );
    });
    parser.on('error', () => abandon('unreadable'));
    parser.on('close', () => {
      if (failed) return;
      void Promise.all(writes).then(
        async (written) => {
          for (const file of written) {
            // An empty file input (no name, no bytes) is an absent field, as in Laravel.
            if (file.filename === '' && file.size === 0) {
              await rm(file.path, { force: true });
              continue;
            }
            (files[file.field] ??= []).push(file);
          }
          resolve({ kind: 'multipart', values, files });
        },
        (error: unknown) => reject(error),
      );
    });
    req.pipe(parser);
  });
}

/** `images[]` → `images`, `loras[0][name]` → `loras`. */
function fieldRoot(name: string): string {
  const bracket = name.indexOf('[');
  return bracket > 0 ? name.slice(0, bracket) : name;
}

/** Sets a form value by its PHP-style name: `a`, `a[]`, `a[0][b]`. */
export function assignField(target: Record<string, unknown>, name: string, value: string): void {
  const bracket = name.indexOf('[');
  if (bracket <= 0 || !name.endsWith(']')) {
    target[name] = value;
    return;
  }
  const path = [name.slice(0, bracket), ...name.slice(bracket + 1, -1).split('][')];
  let container: Record<string, unknown> | unknown[] = target;
  path.forEach((segment, i) => {
    const last = i === path.length - 1;
    const nextSegment = path[i + 1];
    const make = (): Record<string, unknown> | unknown[] => (nextSegment === '' || /^\d+$/.test(nextSegment ?? '') ? [] : {});
    if (Array.isArray(container)) {
      const index = segment === '' ? container.length : Number(segment);
      if (last) container[Number.isNaN(index) ? container.length : index] = value;
      else {
        const existing = container[index];
        container = isContainer(existing) ? existing : (container[index] = make());
      }
    } else {
      if (last) container[segment] = value;
      else {
        const existing = container[segment];
        container = isContainer(existing) ? existing : (container[segment] = make());
      }
    }
  });
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return value !== null && typeof value === 'object';
}
