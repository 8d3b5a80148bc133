/**
 * sha256 digests of input files, streamed so a large video never sits in memory. The cache key
 * of a job includes the digest of each input file, so a file is read once per run at most.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { DeflowError } from '../../common/index.js';

/** The lowercase hex sha256 of a file's content and its size, streamed. */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** The lowercase hex sha256 of a file's content. */
export async function fileDigest(path: string): Promise<string> {
  return (await hashFile(path)).sha256;
}

export interface FileDigester {
  /** The file's sha256, hashed once per (path, size, mtime) for this digester's lifetime. */
  digest(path: string): Promise<string>;
}

/**
 * A memoising {@link fileDigest} for one run. Keyed by size and mtime as well as the path,
 * so a file rewritten during the run is hashed again; concurrent asks share one read.
 */
export function createFileDigester(): FileDigester {
  const memo = new Map<string, Promise<string>>();
  return {
    async digest(path) {
      const absolute = resolve(path);
      let info: Awaited<ReturnType<typeof stat>>;
      try {
        info = await stat(absolute);
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
        throw new DeflowError('E_INPUT_FILE', `${path}: ${reason}`, { cause: error, details: { path } });
      }
      // A FIFO or a device would block the read, or never end.
      if (!info.isFile()) throw new DeflowError('E_INPUT_FILE', `${path}: expected a regular file, got a folder, FIFO, socket or device`, { details: { path } });
      const key = `${absolute}\0${info.size}\0${info.mtimeMs}`;
      let pending = memo.get(key);
      if (pending === undefined) {
        pending = fileDigest(absolute);
        memo.set(key, pending);
        pending.catch(() => memo.delete(key));
      }
      return pending;
    },
  };
}
