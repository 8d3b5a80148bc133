/**
 * Saves stay inside the output folder: a `.part` symbolic link planted beside the save path is
 * replaced, not written through; a symbolic link among the folders to create is refused before
 * anything is created beyond it.
 */
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBlobStore } from '../../../src/engine/cache/index.js';
import { saveOutput } from '../../../src/engine/run/save-output.js';
import { useWorkspace } from '../run-helpers.js';

const TEXT = { kind: 'text', requestId: 'r1', url: null, cost: 0, text: 'the transcript' } as const;

describe('saveOutput', () => {
  it('writes a text result through a fresh .part file, never through a planted symbolic link', async () => {
    const dir = await useWorkspace({ 'victim.txt': 'untouched', 'out/.keep': '' });
    await symlink(join(dir, 'victim.txt'), join(dir, 'out', 'a.txt.part'));
    await saveOutput(TEXT, join(dir, 'out', 'a.txt'), join(dir, 'out'), createBlobStore(join(dir, '.deflow', 'blobs')));
    expect(await readFile(join(dir, 'victim.txt'), 'utf8')).toBe('untouched');
    expect(await readFile(join(dir, 'out', 'a.txt'), 'utf8')).toBe('the transcript');
  });

  it('refuses a symbolic link among the folders to create, and creates nothing outside', async () => {
    const dir = await useWorkspace({ 'elsewhere/.keep': '', 'out/.keep': '' });
    await symlink(join(dir, 'elsewhere'), join(dir, 'out', 'sub'));
    const error = await saveOutput(TEXT, join(dir, 'out', 'sub', 'deep', 'a.txt'), join(dir, 'out'), createBlobStore(join(dir, '.deflow', 'blobs'))).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_WORKFLOW_SAVE_PATH', message: expect.stringContaining('is a symbolic link') });
    await expect(lstat(join(dir, 'elsewhere', 'deep'))).rejects.toThrow();
  });

  it('creates missing folders inside the output folder', async () => {
    const dir = await useWorkspace({});
    await mkdir(join(dir, 'out'));
    await saveOutput(TEXT, join(dir, 'out', 'x', 'y', 'a.txt'), join(dir, 'out'), createBlobStore(join(dir, '.deflow', 'blobs')));
    expect(await readFile(join(dir, 'out', 'x', 'y', 'a.txt'), 'utf8')).toBe('the transcript');
    await writeFile(join(dir, 'out', 'x', 'y', 'a.txt'), 'again');
  });
});

describe('stale temp files', () => {
  it('cleanStale removes .part files older than the limit and keeps fresh ones', async () => {
    const dir = await useWorkspace({ '.deflow/blobs/tmp/old.part': 'x', '.deflow/blobs/tmp/new.part': 'y' });
    const { utimes } = await import('node:fs/promises');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(join(dir, '.deflow/blobs/tmp/old.part'), twoHoursAgo, twoHoursAgo);
    expect(await createBlobStore(join(dir, '.deflow', 'blobs')).cleanStale(3600_000)).toBe(1);
    await expect(lstat(join(dir, '.deflow/blobs/tmp/old.part'))).rejects.toThrow();
    expect((await lstat(join(dir, '.deflow/blobs/tmp/new.part'))).isFile()).toBe(true);
  });
});
