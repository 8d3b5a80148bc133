import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fg from 'fast-glob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSimpleGlob } from '../../src/workflow/items/simple-glob.js';

let dir: string;

/** A folder with what a glob must tell apart: files, hidden files, folders, links (to a file, to a folder, broken). */
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-simple-glob-'));
  await mkdir(join(dir, 'clips', 'nested'), { recursive: true });
  await mkdir(join(dir, 'clips', 'folder.mp3'));
  for (const name of ['a.mp3', 'b.MP3', 'c.mp3.txt', 'ab.mp3', 'x-1-y.mp3', '.hidden.mp3', '.mp3', 'mp3', 'a b.mp3', 'ü.mp3', 'nested/deep.mp3']) await writeFile(join(dir, 'clips', name), 'x');
  await writeFile(join(dir, 'top.mp3'), 'x');
  await symlink(join(dir, 'clips', 'a.mp3'), join(dir, 'clips', 'link-to-file.mp3'));
  await symlink(join(dir, 'clips', 'nested'), join(dir, 'clips', 'link-to-folder.mp3'));
  await symlink(join(dir, 'clips', 'gone.mp3'), join(dir, 'clips', 'broken.mp3'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sorted = (paths: string[] | undefined): string[] | undefined => paths?.sort();

describe('a simple glob lists what fast-glob lists (onlyFiles, dot: false)', () => {
  it.each(['clips/*.mp3', 'clips/*', 'clips/a*', 'clips/*b*', 'clips/x*1*y.mp3', 'clips/*.mp3*', '*.mp3', 'clips/nested/*.mp3', 'clips/*.MP3'])('%s', async (pattern) => {
    const expected = (await fg([pattern], { cwd: dir, onlyFiles: true, unique: true, dot: false })).sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(sorted(listSimpleGlob(pattern, dir))).toEqual(expected);
  });

  it('clips/*.mp3: the files, the link to a file, no hidden file, folder, link to a folder or broken link', () => {
    expect(sorted(listSimpleGlob('clips/*.mp3', dir))).toEqual(['clips/a b.mp3', 'clips/a.mp3', 'clips/ab.mp3', 'clips/link-to-file.mp3', 'clips/x-1-y.mp3', 'clips/ü.mp3']);
  });
});

describe('anything else is left to fast-glob (undefined)', () => {
  it.each([
    ['a globstar', 'clips/**/*.mp3'],
    ['a wildcard folder', 'cl*/*.mp3'],
    ['a class', 'clips/[ab].mp3'],
    ['a brace', 'clips/{a,b}.mp3'],
    ['a ?', 'clips/?.mp3'],
    ['a negation', '!clips/*.mp3'],
    ['an escape', 'clips/\\*.mp3'],
    ['a hidden-file pattern', 'clips/.*'],
    ['no wildcard', 'clips/a.mp3'],
    ['an absolute path', `${dir}/clips/*.mp3`],
    ['a parent folder', '../clips/*.mp3'],
    ['a ./ prefix', './clips/*.mp3'],
    ['a missing folder', 'nowhere/*.mp3'],
    ['no match', 'clips/*.wav'],
  ])('%s: %s', (_, pattern) => {
    expect(listSimpleGlob(pattern, dir)).toBeUndefined();
  });
});
