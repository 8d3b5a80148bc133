/** A digest of what a request asks for: task, resolved values and uploaded file contents. */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { ResolvedRequest } from '../types.js';

function fileDigest(path: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(1 << 20);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
    return hash.digest('hex');
  } catch {
    return 'unreadable';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** SHA-256 (hex) of the task id, the resolved values and each file's content digest. */
export function digestParams(request: ResolvedRequest): string {
  const files = Object.fromEntries(Object.entries(request.files).map(([name, list]) => [name, list.map((f) => fileDigest(f.path))]));
  const doc = canonical({ task: request.endpoint.task?.id ?? null, values: request.values, files });
  return createHash('sha256').update(JSON.stringify(doc)).digest('hex');
}
