/**
 * `npm run bench:readme`: renders the latest `bench/results/*.json` into the README's
 * performance block (between the bench-table markers). test/bench/readme-table.test.ts checks
 * that the README and the latest results agree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { latestResultsFile, readResults, renderPerformanceTables, withTable } from './_results.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const file = latestResultsFile(resolve(root, 'bench', 'results'));
if (file === undefined) {
  process.stderr.write('no bench/results/*.json yet: run `npm run bench` first\n');
  process.exit(1);
}
const readmePath = resolve(root, 'README.md');
const table = renderPerformanceTables(readResults(file), `bench/results/${basename(file)}`);
writeFileSync(readmePath, withTable(readFileSync(readmePath, 'utf8'), table));
process.stdout.write(`README.md: performance tables from bench/results/${basename(file)}\n`);
