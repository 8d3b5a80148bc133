import { isAbsolute, relative, resolve, sep } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveSavePath, UnsafeSavePathError } from '../../src/workflow/render/resolve-save-path.js';

const out = resolve('/srv/deflow/out');

describe('resolveSavePath', () => {
  it('resolves a relative path under the output folder', () => {
    expect(resolveSavePath(out, 'a/b.txt')).toBe(resolve(out, 'a/b.txt'));
    expect(resolveSavePath(out, './x..y.txt')).toBe(resolve(out, 'x..y.txt'));
  });

  it.each([
    ['', 'expected a file path, got an empty string'],
    ['a\0b', 'expected a file path, got a NUL character'],
    ['/etc/passwd', 'expected a path relative to the output folder, got an absolute path'],
    ['C:\\x', 'expected a path relative to the output folder, got an absolute path'],
    ['../x', 'expected a path inside the output folder, got a ".." segment'],
    ['a/../../x', 'expected a path inside the output folder, got a ".." segment'],
    ['a\\..\\..\\x', 'expected a path inside the output folder, got a ".." segment'],
    ['safe/../x', 'expected a path inside the output folder, got a ".." segment'],
    ['dir/', 'expected a file name at the end, got a folder'],
    ['.', 'expected a file name at the end, got a folder'],
  ])('refuses %j', (rendered, reason) => {
    expect(() => resolveSavePath(out, rendered)).toThrow(new UnsafeSavePathError(rendered, reason));
    try {
      resolveSavePath(out, rendered);
    } catch (error) {
      expect((error as UnsafeSavePathError).code).toBe('E_WORKFLOW_SAVE_PATH');
    }
  });

  it('never returns a path outside the output folder (property)', () => {
    const segment = fc.oneof(fc.constantFrom('..', '.', '', '%2e%2e', '..\\', '/', '\\', 'C:', '\0', '~'), fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), fc.constantFrom('/', '\\', ''), (parts, joiner) => {
        const rendered = parts.join(joiner);
        let target: string;
        try {
          target = resolveSavePath(out, rendered);
        } catch (error) {
          return error instanceof UnsafeSavePathError;
        }
        const inside = relative(out, target);
        return inside !== '' && !inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside);
      }),
      { numRuns: 2000 },
    );
  });
});
