import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `chunks` to `path` so that readers see either the old file or the whole new one:
 * write `<path>.part`, fsync it, rename over `path`. Chunks are batched into ~64 KiB writes.
 */
export async function writeChunksAtomic(path: string, chunks: Iterable<string>): Promise<void> {
  const part = `${path}.part`;
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(part, 'w');
  try {
    let pending = '';
    for (const chunk of chunks) {
      pending += chunk;
      if (pending.length >= 65_536) {
        await handle.writeFile(pending);
        pending = '';
      }
    }
    if (pending !== '') await handle.writeFile(pending);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(part, { force: true });
    throw error;
  }
  await handle.close();
  await rename(part, path);
}
