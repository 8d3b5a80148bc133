/**
 * `npm run bench:readme`: renders the latest `bench/results/*.json` into the performance block of
 * docs/performance.md (between the bench-table markers). test/bench/readme-table.test.ts checks
 * that the page and the latest results agree.
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
const pagePath = resolve(root, 'docs', 'performance.md');
const table = renderPerformanceTables(readResults(file), `bench/results/${basename(file)}`);
writeFileSync(pagePath, withTable(readFileSync(pagePath, 'utf8'), table));
process.stdout.write(`docs/performance.md: performance tables from bench/results/${basename(file)}\n`);
