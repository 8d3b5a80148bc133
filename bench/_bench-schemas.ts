/**
 * The emulator reads `schemas/` two levels above its compiled file. Under `dist-bench/` (rootDir
 * `.`) that is `dist-bench/schemas`, which tsc does not emit: link it to the repository's copy
 * before the first emulator starts.
 */
import { existsSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Makes `dist-bench/schemas` point at the repository's `schemas/` (no-op when present). */
export function linkBenchSchemas(): void {
  const distRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const link = join(distRoot, 'schemas');
  const target = resolve(distRoot, '..', 'schemas');
  if (!existsSync(link) && existsSync(target)) symlinkSync(target, link, 'dir');
}
