import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Characters that make a glob more than literal folders and `*` in its last part. */
const NOT_SIMPLE = /[\\[\]{}()!?+@,]/;

/**
 * The files a glob as simple as `clips/*.mp3` matches, listed with one `readdir` instead of
 * fast-glob (about 90 kB of code a start would load): literal folders, then one last part of
 * literal text and `*`s, not starting with a dot. What fast-glob lists for it with `onlyFiles`,
 * `dot: false` (docs/workflow-language.md#for_each-fan-out): each regular file of the folder, or link to one,
 * whose name matches and does not start with a dot, as `folder/name`.
 *
 * Undefined when the pattern is any other, when the folder cannot be listed, or when nothing
 * matches: fast-glob then lists it, and says what is wrong.
 */
export function listSimpleGlob(pattern: string, cwd: string): string[] | undefined {
  if (NOT_SIMPLE.test(pattern)) return undefined;
  const parts = pattern.split('/');
  const last = parts.pop()!;
  if (!last.includes('*') || last.startsWith('.') || last.includes('**')) return undefined;
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('*'))) return undefined;
  const folder = parts.join('/');
  const [head, ...rest] = last.split('*');
  const tail = rest.pop()!;
  let entries;
  try {
    entries = readdirSync(join(cwd, folder), { withFileTypes: true });
  } catch {
    return undefined;
  }
  const found: string[] = [];
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith('.') || !matches(name, head!, rest, tail)) continue;
    const path = folder === '' ? name : `${folder}/${name}`;
    if (entry.isFile() || (entry.isSymbolicLink() && isFileBehindLink(join(cwd, path)))) found.push(path);
  }
  return found.length === 0 ? undefined : found;
}

/** Whether `name` is `head`, each of `middle` in order, then `tail`, with anything between. */
function matches(name: string, head: string, middle: readonly string[], tail: string): boolean {
  if (name.length < head.length + tail.length || !name.startsWith(head) || !name.endsWith(tail)) return false;
  let at = head.length;
  const end = name.length - tail.length;
  for (const piece of middle) {
    const found = name.indexOf(piece, at);
    if (found === -1 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** A link counts as what it points at; a broken one is no file. */
function isFileBehindLink(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
