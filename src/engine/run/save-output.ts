/**
 * Writes a node's result where its step's `save` says, atomically: media from the blob store,
 * text as UTF-8, both with common's atomic writer, so an output path holds either
 * nothing or the whole result. A symlinked folder that leads out of the output folder is
 * refused: rendered paths come from results, which are untrusted.
 */
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DeflowError, fileWriteError, writeFileAtomically } from '../../common/index.js';
import type { BlobStore } from '../cache/index.js';
import type { NodeResult } from '../contracts/node-result.js';

/** Writes `result` to `destPath` (absolute, already checked to be under `outputDir`). */
export async function saveOutput(result: NodeResult, destPath: string, outputDir: string, blobs: BlobStore): Promise<void> {
  await makeFoldersInside(outputDir, dirname(destPath), destPath).catch((error: unknown) => {
    // A full disk or a read-only output folder is named with the path, not E_INTERNAL.
    throw fileWriteError(dirname(destPath), error);
  });
  await assertInside(outputDir, dirname(destPath), destPath);
  if (result.blob !== undefined) {
    await blobs.materialise(result.blob, destPath);
    return;
  }
  const text = result.text ?? (result.json === undefined ? undefined : JSON.stringify(result.json));
  if (text === undefined) {
    throw new DeflowError('E_SAVE_NOTHING', `${destPath}: the job's result was not fetched, so there is nothing to save`, { details: { path: destPath } });
  }
  await writeFileAtomically(destPath, text);
}

/**
 * Creates the folders between `outputDir` and `folder` one at a time, each checked with lstat
 * first: a symbolic link among them is refused before anything is created beyond it.
 */
async function makeFoldersInside(outputDir: string, folder: string, destPath: string): Promise<void> {
  await mkdir(outputDir, { recursive: true });
  const inside = relative(resolve(outputDir), resolve(folder));
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return;
  let current = resolve(outputDir);
  for (const part of inside.split(sep)) {
    current = join(current, part);
    let info: Awaited<ReturnType<typeof lstat>> | undefined;
    try {
      info = await lstat(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (info === undefined) {
      await mkdir(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      continue;
    }
    if (info.isSymbolicLink()) {
      throw new DeflowError('E_WORKFLOW_SAVE_PATH', `save path ${destPath}: ${current} is a symbolic link; results are saved only into real folders inside the output folder`, {
        details: { path: destPath, link: current },
      });
    }
  }
}

async function assertInside(outputDir: string, folder: string, destPath: string): Promise<void> {
  const [root, real] = await Promise.all([realpath(outputDir), realpath(folder)]);
  const inside = relative(root, real);
  if (inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside))) return;
  throw new DeflowError('E_WORKFLOW_SAVE_PATH', `save path ${destPath}: its folder resolves to ${real}, outside the output folder ${resolve(root)} (a symbolic link?)`, {
    details: { path: destPath, resolved: real, outputDir: root },
  });
}
