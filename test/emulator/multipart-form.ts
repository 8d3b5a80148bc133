import { FormData } from 'undici';

/** A multipart body built with undici's FormData (the one its `request` streams). */
export function multipartForm(values: Record<string, string>, files: Record<string, [string, Buffer, string?]> = {}): FormData {
  const body = new FormData();
  for (const [k, v] of Object.entries(values)) body.append(k, v);
  for (const [k, [name, bytes, type]] of Object.entries(files)) {
    body.append(k, new Blob([new Uint8Array(bytes)], { type: type ?? 'application/octet-stream' }), name);
  }
  return body;
}
