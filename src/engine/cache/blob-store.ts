/**
 * Result files stored by content: `blobs/ab/<sha256>`. Identical content is stored once, and a
 * blob is complete whenever its name exists (written aside, flushed, renamed into place).
 */
import { createHash } from 'node:crypto';
import { createWriteStream, constants as fsConstants } from 'node:fs';
import { copyFile, link, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeflowError } from '../../common/index.js';
import { fileWriteError, fsyncDir, mkdirDurable, newTempName, placeFileAtomically } from '../../common/index.js';
import { hashFile } from './file-digest.js';

export interface BlobStore {
  readonly dir: string;
  /**
   * Moves a finished file into the store (it no longer exists at `tmpPath` afterwards) and
   * returns its sha256. Content already stored is kept and the new copy removed.
   */
  putFile(tmpPath: string): Promise<string>;
  /** Stores a stream's bytes, hashing them as they are written; returns their sha256. */
  putStream(source: Readable | AsyncIterable<Uint8Array>): Promise<string>;
  /** Where the blob with this sha256 lives (whether or not it exists). */
  path(sha256: string): string;
  /** True when the blob exists, and has `size` bytes when a size is given. */
  has(sha256: string, size?: number): Promise<boolean>;
  /**
   * Writes the blob to `destPath` (replacing it), as a hard link when the file system allows,
   * else as a copy; either way with common's atomic writer, so `destPath` is never
   * partial. A hard-linked output shares its bytes with the store: edit it in place and the
   * cached blob changes too (tools that save by rename are safe). Pass `'copy'` to avoid this.
   * @throws DeflowError `E_CACHE_BLOB_MISSING`
   */
  materialise(sha256: string, destPath: string, mode?: 'link' | 'copy'): Promise<'link' | 'copy'>;
  /** Removes `tmp/*.part` files older than `olderThanMs` (left by a killed run); resolves with how many. */
  cleanStale(olderThanMs: number, now?: number): Promise<number>;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** A blob store in `blobsDir` (by convention `<stateDir>/blobs`). */
export function createBlobStore(blobsDir: string): BlobStore {
  const pathOf = (sha256: string): string => {
    if (!SHA256.test(sha256)) throw new TypeError(`blob id: expected 64 lowercase hex digits, got ${JSON.stringify(sha256)}`);
    return join(blobsDir, sha256.slice(0, 2), sha256);
  };

  /** Moves a flushed file into place under its hash, unless that content is already there. */
  const adopt = async (file: string, sha256: string): Promise<string> => {
    const final = pathOf(sha256);
    if (await exists(final)) {
      await rm(file, { force: true });
      return sha256;
    }
    mkdirDurable(dirname(final));
    try {
      await rename(file, final);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      const staged = await stagingPath();
      await copyFile(file, staged);
      await flushFile(staged);
      await rename(staged, final);
      await rm(file, { force: true });
    }
    fsyncDir(dirname(final));
    return sha256;
  };

  const stagingPath = async (): Promise<string> => {
    const staging = join(blobsDir, 'tmp');
    await mkdir(staging, { recursive: true }).catch((error: unknown) => {
      throw fileWriteError(staging, error);
    });
    // Names its writer: a run removes a killed writer's file at once (common's orphan-temps.ts).
    return join(staging, newTempName());
  };

  return {
    dir: blobsDir,
    path: pathOf,

    async putFile(tmpPath) {
      const { sha256 } = await hashFile(tmpPath);
      await flushFile(tmpPath);
      return adopt(tmpPath, sha256);
    },

    async putStream(source) {
      const staged = await stagingPath();
      const hash = createHash('sha256');
      const sink = createWriteStream(staged, { flags: 'wx' });
      try {
        await pipeline(
          source,
          async function* (chunks: AsyncIterable<Uint8Array>) {
            for await (const chunk of chunks) {
              hash.update(chunk);
              yield chunk;
            }
          },
          sink,
        );
        await flushFile(staged);
      } catch (error) {
        // A source that fails at once can beat the file's open: wait until the sink has opened
        // (or failed to) and closed, or the file would appear after it was removed.
        if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
        await rm(staged, { force: true });
        // A full disk or a read-only state folder is named with its path, not E_INTERNAL.
        throw fileWriteError(staged, error);
      }
      return adopt(staged, hash.digest('hex')).catch((error: unknown) => {
        throw fileWriteError(blobsDir, error);
      });
    },

    async cleanStale(olderThanMs, now = Date.now()) {
      const staging = join(blobsDir, 'tmp');
      let names: string[];
      try {
        names = await readdir(staging);
      } catch {
        return 0;
      }
      let removed = 0;
      for (const name of names) {
        if (!name.endsWith('.part')) continue;
        try {
          // Another run may be writing a fresh one: only old files are left-overs.
          if (now - (await stat(join(staging, name))).mtimeMs < olderThanMs) continue;
          await rm(join(staging, name), { force: true });
          removed++;
        } catch {
          // gone meanwhile
        }
      }
      return removed;
    },

    async has(sha256, size) {
      try {
        const info = await stat(pathOf(sha256));
        return size === undefined || info.size === size;
      } catch {
        return false;
      }
    },

    async materialise(sha256, destPath, mode = 'link') {
      const source = pathOf(sha256);
      if (!(await exists(source))) {
        throw new DeflowError('E_CACHE_BLOB_MISSING', `${source}: cached result file is missing from the state folder`, {
          details: { sha256, destPath },
        });
      }
      let used: 'link' | 'copy' = mode;
      // The journal records this output as written next: the writer flushes the folder first.
      await placeFileAtomically(
        destPath,
        async (tmp) => {
          if (mode === 'link') {
            try {
              await link(source, tmp);
              return;
            } catch {
              used = 'copy'; // another file system, or links not allowed
            }
          }
          // EXCL: never through a symbolic link planted at the temporary name.
          await copyFile(source, tmp, fsConstants.COPYFILE_FICLONE | fsConstants.COPYFILE_EXCL);
          await flushFile(tmp);
        },
        { makeFolder: true },
      );
      return used;
    },
  };
}

async function flushFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
