import type { Readable } from 'node:stream';

/** A file on disk, streamed into a multipart body (never read whole). */
export interface FileRef {
  readonly path: string;
  /** Part file name. @default the path's base name */
  readonly filename?: string;
  /** Declared Content-Type (the service sniffs content anyway). @default 'application/octet-stream' */
  readonly contentType?: string;
}

/**
 * A byte stream of known or unknown length, e.g. a previous job's result piped into this
 * upload. `stream` is a factory so that a retry can open the source again.
 */
export interface StreamRef {
  readonly stream: () => Readable | AsyncIterable<Uint8Array>;
  /** Byte length, when known (lets the body carry a Content-Length). */
  readonly size?: number | undefined;
  readonly filename: string;
  readonly contentType?: string;
}

/** A request field value: scalars, file references, and arrays or objects of them (loras, images[]). */
export type FieldValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | FileRef
  | StreamRef
  | readonly FieldValue[]
  | { readonly [key: string]: FieldValue };

/** The fields of one request, by the service's own field names. */
export type RequestFields = Readonly<Record<string, FieldValue>>;

/** True for `{ path }` file references. */
export function isFileRef(value: unknown): value is FileRef {
  return typeof value === 'object' && value !== null && typeof (value as { path?: unknown }).path === 'string' && !('stream' in value);
}

/** True for `{ stream, filename }` stream references. */
export function isStreamRef(value: unknown): value is StreamRef {
  return typeof value === 'object' && value !== null && typeof (value as { stream?: unknown }).stream === 'function';
}
