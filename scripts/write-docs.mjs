// `npm run docs`: writes the generated reference pages of docs/reference/ (CLI, tasks, exit and
// error codes, the JSON Schemas' fields) from the build (dist/cli/reference), after `tsc`.
// test/docs/reference-pages.test.ts fails when a committed page is not what this writes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { referencePages } = await import(join(root, 'dist', 'cli', 'reference', 'reference-pages.js'));
for (const [path, content] of referencePages(root)) {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  let before;
  try {
    before = readFileSync(file, 'utf8');
  } catch {
    before = undefined;
  }
  if (before === content) {
    process.stdout.write(`${path}: unchanged\n`);
    continue;
  }
  writeFileSync(file, content);
  process.stdout.write(`${path}: written\n`);
}
