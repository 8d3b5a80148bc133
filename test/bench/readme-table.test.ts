/**
 * The performance tables of docs/performance.md are generated from the latest
 * `bench/results/*.json` (by `npm run bench:readme`); this checks that nobody edited one without
 * the other.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { latestResultsFile, readResults, renderPerformanceTables, tableBlockOf } from '../../bench/_results.js';

const root = join(import.meta.dirname, '..', '..');

describe('docs/performance.md performance tables', () => {
  it('are the latest bench/results file, rendered', () => {
    const file = latestResultsFile(join(root, 'bench', 'results'));
    expect(file, 'no bench/results/*.json: run `npm run bench`').toBeDefined();
    const results = readResults(file!);
    expect(results.machine.cpus).toBeGreaterThan(0);
    expect(results.node).toMatch(/^v\d+\./);
    const block = tableBlockOf(readFileSync(join(root, 'docs', 'performance.md'), 'utf8'));
    expect(block, 'docs/performance.md has no bench-table block').toBeDefined();
    expect(block, 'docs/performance.md is not the latest bench results: run `npm run bench:readme`').toBe(renderPerformanceTables(results, `bench/results/${basename(file!)}`));
  });
});
