/**
 * The one atomic writer: a fresh temporary name (never a planted `<file>.part` link), only a
 * regular file is ever replaced (a folder, a device, a fifo or a symbolic link is refused with
 * E_OUTPUT_NOT_FILE and nothing is left beside it), and a full disk or a read-only folder is
 * E_DISK_FULL / E_OUTPUT_NOT_WRITABLE naming the path, with no temporary file left behind.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { writeFileAtomic, writeFileAtomically } from '../../src/common/index.js';
import { canMount, useSmallDisk } from '../helpers/small-disks.js';

function useDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'deflow-atomic-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const writers = {
  sync: (path: string, text: string) => Promise.resolve().then(() => writeFileAtomic(path, text)),
  async: (path: string, text: string) => writeFileAtomically(path, text),
  chunks: (path: string, text: string) => writeFileAtomically(path, [text.slice(0, 3), text.slice(3)]),
} as const;

describe.each(Object.entries(writers))('the atomic writer (%s)', (_name, write) => {
  it('replaces a file and leaves no temporary file beside it', async () => {
    const dir = useDir();
    writeFileSync(join(dir, 'report.json'), 'old');
    await write(join(dir, 'report.json'), 'new content');
    expect(readFileSync(join(dir, 'report.json'), 'utf8')).toBe('new content');
    expect(readdirSync(dir)).toEqual(['report.json']);
  });

  it('never writes through a planted <file>.part symbolic link', async () => {
    const dir = useDir();
    writeFileSync(join(dir, 'victim'), 'untouched');
    symlinkSync(join(dir, 'victim'), join(dir, 'report.json.part'));
    await write(join(dir, 'report.json'), 'the report');
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('untouched');
    expect(readFileSync(join(dir, 'report.json'), 'utf8')).toBe('the report');
  });

  it('refuses a target that is a folder, and leaves nothing beside it', async () => {
    const dir = useDir();
    mkdirSync(join(dir, 'junit.xml'));
    await expect(write(join(dir, 'junit.xml'), 'x')).rejects.toMatchObject({ code: 'E_OUTPUT_NOT_FILE', message: expect.stringContaining('is a folder') });
    expect(readdirSync(dir)).toEqual(['junit.xml']);
    expect(lstatSync(join(dir, 'junit.xml')).isDirectory()).toBe(true);
  });

  it('refuses a target that is a symbolic link, and leaves its target alone', async () => {
    const dir = useDir();
    writeFileSync(join(dir, 'victim'), 'untouched');
    symlinkSync(join(dir, 'victim'), join(dir, 'report.html'));
    await expect(write(join(dir, 'report.html'), 'x')).rejects.toMatchObject({ code: 'E_OUTPUT_NOT_FILE', message: expect.stringContaining('is a symbolic link') });
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('untouched');
    expect(lstatSync(join(dir, 'report.html')).isSymbolicLink()).toBe(true);
  });

  it('refuses a fifo', async () => {
    const dir = useDir();
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    await expect(write(join(dir, 'pipe'), 'x')).rejects.toMatchObject({ code: 'E_OUTPUT_NOT_FILE', message: expect.stringContaining('is a fifo') });
    expect(lstatSync(join(dir, 'pipe')).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(['pipe']);
  });

  it.runIf(canMount)('refuses a device node (a copy of /dev/full) and keeps it a device', async () => {
    const dir = useDir();
    execFileSync('mknod', [join(dir, 'full'), 'c', '1', '7']);
    await expect(write(join(dir, 'full'), '<html>')).rejects.toMatchObject({ code: 'E_OUTPUT_NOT_FILE', message: expect.stringContaining('is a device') });
    expect(lstatSync(join(dir, 'full')).isCharacterDevice()).toBe(true);
    expect(readdirSync(dir)).toEqual(['full']);
  });

  it.runIf(canMount)('names a full disk E_DISK_FULL with the path, and leaves no temporary file', async () => {
    const disk = useSmallDisk('64k');
    const error = await write(join(disk, 'report.json'), 'x'.repeat(256 * 1024)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_DISK_FULL', details: { path: join(disk, 'report.json') } });
    expect((error as Error).message).toContain(join(disk, 'report.json'));
    expect(readdirSync(disk)).toEqual([]);
  });

  it.runIf(canMount)('names a read-only folder E_OUTPUT_NOT_WRITABLE with the path', async () => {
    const disk = useSmallDisk('64k', { ro: true });
    const error = await write(join(disk, 'report.json'), 'x').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_OUTPUT_NOT_WRITABLE', details: { path: join(disk, 'report.json') } });
    expect((error as Error).message).toContain('read-only');
  });
});
