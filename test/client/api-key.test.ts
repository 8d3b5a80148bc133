import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { readApiKey } from '../../src/client/api-key.js';

describe('readApiKey', () => {
  test('takes DEAPI_API_KEY, trimmed, when no file is given', async () => {
    expect(await readApiKey({ env: { DEAPI_API_KEY: ' k-1 \n' } })).toBe('k-1');
    expect(await readApiKey({ env: { DEAPI_API_KEY: '' } })).toBeUndefined();
  });

  test('prefers --api-key-file, a path or - for standard input', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-key-'));
    try {
      await writeFile(join(dir, 'key'), 'from-file\n');
      expect(await readApiKey({ env: { DEAPI_API_KEY: 'env' }, apiKeyFile: 'key', cwd: dir })).toBe('from-file');
      expect(await readApiKey({ env: {}, apiKeyFile: '-', stdin: Readable.from(['from-stdin\n']) })).toBe('from-stdin');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('refuses an empty key file or one with several words, without quoting it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-key-'));
    try {
      await writeFile(join(dir, 'empty'), '\n');
      await writeFile(join(dir, 'two'), 'secret-one secret-two\n');
      await expect(readApiKey({ env: {}, apiKeyFile: 'empty', cwd: dir })).rejects.toMatchObject({ code: 'E_USAGE_KEY_FILE' });
      const error = await readApiKey({ env: {}, apiKeyFile: 'two', cwd: dir }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'E_USAGE_KEY_FILE' });
      expect((error as Error).message).not.toContain('secret-one');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
