/**
 * The seeded fault matrix: every fault of the fault proxy × {submit, poll, download} × seeds.
 * Each case runs a two-step workflow through the proxy, then again with the proxy clean
 * (fault-case.ts). Every run must end (0 hangs), done or with coded errors only; no output file
 * may be partial; no job may be paid twice; the clean re-run must leave nothing failed (paid
 * results are fetched again, never bought again).
 *
 * `npm test` runs seed 1 (24 cases); `npm run fault-matrix` runs seeds 1, 2 and 3 (72 cases).
 * FAULT_SEEDS=4,5 picks others. The figures are printed at the end (and written to the file
 * named by FAULT_MATRIX_OUT, when set).
 */
import { writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, test } from 'vitest';
import { FAULTS, PHASES } from '../../helpers/fault-proxy.js';
import { type CaseResult, HARD_TIMEOUT_MS, runFaultCase } from './fault-case.js';

const SEEDS = (process.env.FAULT_SEEDS ?? '1')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n));
const CASES = SEEDS.flatMap((seed) => FAULTS.flatMap((fault) => PHASES.map((phase) => ({ fault, phase, seed }))));
const results: CaseResult[] = [];
const started = Date.now();

describe('the seeded fault matrix: every run ends, done or with coded errors; nothing partial; nothing paid twice', () => {
  test.each(CASES)('$fault on $phase, seed $seed', async (plan) => {
    const result = await runFaultCase(plan);
    results.push(result);
    expect(result.problems).toEqual([]);
    expect(result.hangs).toBe(0);
    expect(['done', 'failed']).toContain(result.first);
    expect(result.partialFiles).toEqual([]);
    expect(result.paidTwice).toEqual([]);
    expect(result.secondFailed).toBe(0);
  }, 2 * HARD_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    const figures = summarise(results, Date.now() - started);
    process.stdout.write(`fault matrix: ${JSON.stringify(figures)}\n`);
    if (process.env.FAULT_MATRIX_OUT) await writeFile(process.env.FAULT_MATRIX_OUT, `${JSON.stringify({ figures, cases: results }, null, 2)}\n`);
  });
});

function summarise(all: readonly CaseResult[], ms: number) {
  const count = (pick: (r: CaseResult) => boolean) => all.filter(pick).length;
  const states: Record<string, number> = {};
  const codes: Record<string, number> = {};
  for (const r of all) {
    for (const [state, n] of Object.entries(r.states)) states[state] = (states[state] ?? 0) + n;
    for (const code of r.codes) codes[code] = (codes[code] ?? 0) + 1;
  }
  return {
    seeds: SEEDS,
    cases: all.length,
    faults_injected: all.reduce((sum, r) => sum + r.hits, 0),
    first_run_done: count((r) => r.first === 'done'),
    first_run_failed_coded: count((r) => r.first === 'failed'),
    first_run_other: count((r) => r.first !== 'done' && r.first !== 'failed'),
    item_states: states,
    error_codes: codes,
    hangs: all.reduce((sum, r) => sum + r.hangs, 0),
    partial_files: all.reduce((sum, r) => sum + r.partialFiles.length, 0),
    paid_twice: all.reduce((sum, r) => sum + r.paidTwice.length, 0),
    rerun_failed_items: all.reduce((sum, r) => sum + Math.max(0, r.secondFailed), 0),
    rerun_done: count((r) => r.second === 'done'),
    real_seconds: Math.round(ms / 100) / 10,
  };
}
