import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ParsedBody, UploadedFile } from '../../src/emulator/types.js';
import { type Endpoint, findCatalogueModel, MODEL_CATALOGUE, matchEndpoint } from '../../src/service/index.js';

/** The built-in catalogue as a registry. */
export const models = { list: () => MODEL_CATALOGUE, find: findCatalogueModel };

/** The endpoint at a literal POST path. */
export function post(path: string): Endpoint {
  const match = matchEndpoint('POST', path);
  if (!match) throw new Error(`no endpoint ${path}`);
  return match.endpoint;
}

export function jsonBody(values: Record<string, unknown>): ParsedBody {
  return { kind: 'json', values, files: {} };
}

/** A multipart body; `files` maps field → [filename, bytes] pairs written under `dir`. */
export async function formBody(
  dir: string,
  values: Record<string, string>,
  files: Record<string, [string, Buffer][]> = {},
): Promise<ParsedBody> {
  const out: Record<string, UploadedFile[]> = {};
  let n = 0;
  for (const [field, list] of Object.entries(files)) {
    out[field] = [];
    for (const [filename, bytes] of list) {
      const path = join(dir, `upload-${Date.now()}-${n++}`);
      await writeFile(path, bytes);
      out[field].push({ field, filename, path, size: bytes.length, declaredType: null });
    }
  }
  return { kind: 'multipart', values, files: out };
}
