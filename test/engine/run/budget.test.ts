import { describe, expect, it } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { BudgetGuard } from '../../../src/engine/run/budget-guard.js';
import { RunReportBuilder } from '../../../src/report/run-report.js';
import { clientFor, runIn, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

const CHAIN = yaml(
  'version: 1',
  'name: budget',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "clips/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
  '  speak:',
  '    task: audio.speech',
  '    for_each: transcribe',
  '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
);
const clips = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`clips/c${i}.mp3`, makeMp3(30)]));

describe('budget', () => {
  it('refuses to start when the quote is above the budget, and submits nothing', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator();
    const run = await runIn(dir, emulator, { quoted: true, maxCost: 0.000001 });
    expect(run.outcome).toMatchObject({ status: 'over-budget', exitCode: 4 });
    expect(run.of('quoted')).toHaveLength(1);
    expect(run.of('quoted')[0]!.maxCost).toBe(0.000001);
    expect(emulator.stats().submissions).toBe(0);
    expect(run.of('run-finished')[0]!.counts).toMatchObject({ total: 6, pending: 6 });
  });

  it('never submits a job whose price could take spending past the cap', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN.replace(/ {2}speak:[\s\S]*/, ''), ...clips(5) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 3000 } });
    const client = clientFor(emulator);
    const price = await client.price('audio.transcribe', { source_file: { path: `${dir}/clips/c0.mp3` }, model: 'WhisperLargeV3', include_ts: false });
    // No quote up front: each job is priced just before it is submitted.
    const run = await runIn(dir, emulator, { client, maxCost: price * 2.5 });
    expect(run.outcome).toMatchObject({ status: 'over-budget', exitCode: 4 });
    expect(emulator.stats().submissions).toBe(2);
    expect(run.outcome.spent).toBeLessThanOrEqual(price * 2.5);
    expect(run.outcome.counts).toMatchObject({ done: 2, pending: 3 });
  });

  it('reserves the high end of estimated prices and stays under the cap', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(4) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 3000 } });
    const probe = await runIn(dir, emulator, { quoted: true, maxCost: 1000 });
    const total = probe.of('quoted')[0]!.total;
    expect(total.high).toBeGreaterThan(total.exact);
    const cap = (total.exact + total.estimated + total.high) / 2;
    const emulator2 = await useFastEmulator({ jobs: { duration_ms: 3000 } });
    const run = await runIn(dir, emulator2, { quoted: true, maxCost: cap });
    expect(run.outcome.spent).toBeLessThanOrEqual(cap);
    expect(emulator2.jobs().reduce((sum, job) => sum + job.price, 0)).toBeLessThanOrEqual(cap + 1e-9);
  });

  it('reports the quoted and the actual cost of every item and step', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN.replace(/ {2}speak:[\s\S]*/, ''), ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const run = await runIn(dir, emulator, { quoted: true, maxCost: 10 });
    expect(run.outcome.status).toBe('done');
    const charged = emulator.jobs().map((j) => j.price);
    for (const done of run.of('item-done')) {
      expect(done.quotedCost).not.toBeNull();
      expect(done.cost).toBeCloseTo(done.quotedCost!, 9);
    }
    const report = new RunReportBuilder();
    for (const event of run.events) report.handle(event);
    const step = report.summary().steps[0]!;
    expect(step.cost_actual).toBeCloseTo(charged.reduce((a, b) => a + b, 0), 9);
    expect(step.cost_quoted).toBeCloseTo(step.cost_actual, 9);
    expect(run.of('run-finished')[0]!.spent).toBeCloseTo(step.cost_actual, 6);
  });

  it('holds reservations until jobs finish', () => {
    const guard = new BudgetGuard(1);
    expect(guard.reserve(0.6)).toBe(true);
    expect(guard.reserve(0.5)).toBe(false);
    guard.settle(0.6, 0.2);
    expect(guard.reserve(0.5)).toBe(true);
    expect(guard.spent + guard.reserved).toBeCloseTo(0.7, 9);
  });
});
