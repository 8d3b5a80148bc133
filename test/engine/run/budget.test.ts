import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DeapiClient } from '../../../src/client/deapi-client.js';
import type { Clock } from '../../../src/common/clock.js';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import type { RunEventSink } from '../../../src/engine/contracts/events.js';
import { quoteRun } from '../../../src/engine/quote/quote.js';
import { quoteInputFromGraph } from '../../../src/engine/quote/quote-input-from-graph.js';
import { clientPriceSource } from '../../../src/engine/quote/quote-price-source.js';
import { BudgetGuard } from '../../../src/engine/run/budget/budget-guard.js';
import { RunPricer } from '../../../src/engine/run/budget/run-pricer.js';
import { RunReportBuilder } from '../../../src/report/files/run-report.js';
import type { JobGraph } from '../../../src/workflow/index.js';
import { duplicateJobs, runDurablyIn } from '../journal/durable-helpers.js';
import { clientFor, graphOf, runIn, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

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

const SCANS = {
  'scans/a.png': readFileSync(fileURLToPath(new URL('../../../workflows/media/scans/invoice.png', import.meta.url))),
  'scans/b.png': readFileSync(fileURLToPath(new URL('../../../workflows/media/scans/notes.png', import.meta.url))),
};
/** OCR two scans, then read each text aloud: the speech cannot be priced before the OCR has run. */
const OCR_SPEECH = yaml(
  'version: 1',
  'name: ocr-speech',
  'steps:',
  '  read:',
  '    task: image.ocr',
  '    for_each: { glob: "scans/*.png" }',
  '    with: { image: "${{ item.path }}", model: Nanonets_Ocr_S_F16 }',
  '  say:',
  '    task: audio.speech',
  '    for_each: read',
  '    with: { text: "${{ steps.read.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
);
/** What the emulator charged for every job it finished. */
const charged = (emulator: { jobs(): { status: string; price: number }[] }): number =>
  Math.round(emulator.jobs().reduce((sum, job) => sum + (job.status === 'done' ? job.price : 0), 0) * 1e6) / 1e6;

function quoteWith(graph: JobGraph, client: DeapiClient, clock: Clock, extra: { maxCost?: number; allowUnpriced?: boolean } = {}) {
  return (onEvent: RunEventSink) => quoteRun(quoteInputFromGraph(graph), { prices: clientPriceSource(client), clock, onEvent, ...extra });
}

describe('budget gates fail closed', () => {
  it('compares the high end with the cap: a cap between the point and the high end submits nothing', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator();
    const probe = await runIn(dir, emulator, { quoted: true, maxCost: 1000 });
    const total = probe.of('quoted')[0]!.total;
    expect(total.high).toBeGreaterThan(total.point);
    const emulator2 = await useFastEmulator();
    const cap = (total.point + total.high) / 2;
    const run = await runIn(dir, emulator2, { quoted: true, maxCost: cap });
    expect(run.outcome).toMatchObject({ status: 'over-budget', exitCode: 4, spent: 0 });
    expect(run.outcome.budget).toMatchObject({ maxCost: cap, verdict: 'over-budget', refused: null });
    expect(run.outcome.budget!.reason).toMatch(/^the high end of the quote, \$0\.\d+, is above the cap of \$0\.\d+$/);
    expect(emulator2.stats().submissions).toBe(0);
  });

  it('refuses to start when items have no price, unless allowed', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': OCR_SPEECH, ...SCANS });
    const emulator = await useFastEmulator();
    const run = await runIn(dir, emulator, { quoted: true, maxCost: 5 });
    expect(run.outcome).toMatchObject({ status: 'over-budget', exitCode: 4 });
    expect(run.outcome.budget).toMatchObject({ verdict: 'unpriced', reason: expect.stringMatching(/^2 item\(s\) have no price/) });
    expect(emulator.stats().submissions).toBe(0);
    const allowed = await runIn(dir, emulator, { quoted: true, maxCost: 5, allowUnpriced: true });
    expect(allowed.outcome).toMatchObject({ status: 'done', exitCode: 0 });
    expect(allowed.outcome.spent).toBeCloseTo(charged(emulator), 6);
  });

  it('with unpriced items allowed, a cap between the first step and the whole run submits nothing past the cap and says which job it stopped', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': OCR_SPEECH, ...SCANS });
    const emulator = await useFastEmulator();
    const client = clientFor(emulator);
    const graph = await graphOf(dir);
    // Both scans cost 0.000773 to read; each speech of their text costs more than 0.00005.
    const cap = 0.001546 + 0.0001;
    const run = await runDurablyIn(dir, emulator, { client, quote: quoteWith(graph, client, emulator.clock, { allowUnpriced: true }), maxCost: cap, allowUnpriced: true, concurrency: 1 });
    expect(run.outcome).toMatchObject({ status: 'over-budget', exitCode: 4 });
    expect(charged(emulator)).toBeLessThanOrEqual(cap);
    expect(run.outcome.spent).toBe(charged(emulator));
    // The scheduler runs later steps first, so the job refused may be a speech or the second scan.
    const refused = run.outcome.budget!.refused!;
    expect(['read', 'say']).toContain(refused.node.step);
    expect(refused.how).toBe(refused.node.step === 'say' ? 'its price, asked of its twin just before sending' : 'its quoted price');
    expect(refused.spent + refused.reserved + refused.amount).toBeGreaterThan(cap);
    expect(run.outcome.counts.pending).toBeGreaterThanOrEqual(1);
    expect(emulator.stats().submissions).toBeLessThan(4);

    // Resumed with a higher cap, it finishes; what earlier sessions spent counts against it.
    const again = await runDurablyIn(dir, emulator, { client, quote: quoteWith(graph, client, emulator.clock, { allowUnpriced: true }), maxCost: 1, allowUnpriced: true });
    expect(again.outcome).toMatchObject({ status: 'done', resumed: true, spentEarlier: run.outcome.spent });
    expect(again.outcome.spent).toBeCloseTo(charged(emulator), 9);
  });

  it('counts what earlier sessions spent against the cap of a resumed run', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN.replace(/ {2}speak:[\s\S]*/, ''), ...clips(3) });
    const emulator = await useFastEmulator();
    const client = clientFor(emulator);
    const graph = await graphOf(dir);
    let interrupt: () => void = () => {};
    const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
    const first = await runDurablyIn(dir, emulator, {
      client,
      concurrency: 1,
      interrupted,
      graceMs: 60_000,
      onEvent: (event) => {
        if (event.type === 'item-done') interrupt();
      },
    });
    expect(first.outcome.status).toBe('interrupted');
    const spent = charged(emulator);
    expect(spent).toBeGreaterThan(0);
    const quote = await quoteWith(graph, client, emulator.clock)(() => {});
    // Enough for what is left, not for what is left plus what was already spent.
    const left = quote.total.high - spent;
    const resumed = await runDurablyIn(dir, emulator, { client, quote: quoteWith(graph, client, emulator.clock), maxCost: left + spent / 2 });
    expect(resumed.outcome).toMatchObject({ status: 'over-budget', resumed: true, spentEarlier: spent });
    expect(resumed.outcome.budget!.reason).toContain(`plus $${spent} already spent by this run`);
    expect(charged(emulator)).toBe(spent);
  });
});

describe('reservations', () => {
  it('re-price an estimated job from its input once it exists: a speech job from its transcript', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator();
    const client = clientFor(emulator);
    const graph = await graphOf(dir);
    const quote = await quoteWith(graph, client, emulator.clock)(() => {});
    const pricer = new RunPricer(graph);
    pricer.applyQuote(quote);
    const speak = graph.step('speak');
    const id = speak.offset + 1;
    const high = pricer.high[id]!;
    const text = 'a transcript that turned out much shorter than the estimate';
    const held = await pricer.reservation(id, { text, model: 'Kokoro', voice: 'af_sky', lang: 'en-us' });
    const twin = await client.price('audio.speech', { model: 'Kokoro', voice: 'af_sky', lang: 'en-us', count_text: text.length });
    expect(held!.how).toBe(`priced from its input (count_text=${text.length})`);
    expect(held!.amount).toBeGreaterThanOrEqual(twin);
    expect(held!.amount).toBeLessThanOrEqual(twin + 3e-6);
    expect(held!.amount).toBeLessThan(high);
    // Without its input measurable, the high end of the estimate is held.
    expect(await pricer.reservation(id, { model: 'Kokoro' })).toEqual({ amount: high, how: 'the high end of its estimate' });
    // An exact price is held as quoted.
    const t0 = graph.step('transcribe').offset;
    expect(await pricer.reservation(t0, {})).toEqual({ amount: pricer.point[t0]!, how: 'its quoted price' });
  });

  it('hold the high end, not the point price, of a fitted price and of an estimate whose input cannot be measured: a cap between the two refuses the job', async () => {
    // Nine clip lengths: some transcriptions are asked, the rest fitted on their line.
    const lengths = [10, 20, 35, 50, 80, 130, 210, 340, 550];
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...Object.fromEntries(lengths.map((s, i) => [`clips/c${i}.mp3`, makeMp3(s)])) });
    const emulator = await useFastEmulator();
    const client = clientFor(emulator);
    const graph = await graphOf(dir);
    const quote = await quoteWith(graph, client, emulator.clock)(() => {});
    const pricer = new RunPricer(graph);
    pricer.applyQuote(quote);
    const heldOver = (id: number, held: { amount: number } | undefined) => {
      const point = pricer.point[id]!;
      const high = pricer.high[id]!;
      expect(high).toBeGreaterThan(point);
      expect(held!.amount).toBe(high);
      // The guard refuses a job whose high end does not fit, though its point price would.
      expect(new BudgetGuard((point + high) / 2).reserve(held!.amount)).toBe(false);
    };
    const transcribe = graph.step('transcribe');
    const fitted = quote.steps.find((s) => s.id === 'transcribe')!.quoted_items.filter((i) => i.method === 'fitted' && (i.high ?? i.price!) > i.price!);
    expect(fitted.length).toBeGreaterThan(0);
    for (const item of fitted) {
      const id = transcribe.offset + item.index;
      const held = await pricer.reservation(id, {});
      expect(held!.how).toBe('the high end of its fitted price');
      heldOver(id, held);
    }
    const speak = graph.step('speak');
    for (let k = 0; k < lengths.length; k++) {
      const held = await pricer.reservation(speak.offset + k, { model: 'Kokoro' });
      expect(held!.how).toBe('the high end of its estimate');
      heldOver(speak.offset + k, held);
    }
  });

  it('hold the highest price seen for a step when an unpriced job cannot be priced', () => {
    const pricer = new RunPricer({ nodeCount: 2 } as JobGraph);
    expect(pricer.fallback('say')).toBeUndefined();
    pricer.observe('say', 0.0002);
    pricer.observe('say', 0.0001);
    expect(pricer.fallback('say')).toEqual({ amount: 0.0002, how: 'the highest price seen so far for step say' });
  });
});

describe('reports add up over every session of a run', () => {
  it('report totals, per-session costs and step costs equal the balance delta after two crashes and a resume', async () => {
    // Clips of different lengths: identical ones would come from the result cache at no cost.
    const distinct = Object.fromEntries([20, 25, 30].map((s, i) => [`clips/c${i}.mp3`, makeMp3(s)]));
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...distinct });
    const emulator = await useFastEmulator();
    const client = clientFor(emulator);
    const before = (await client.balance()).balance;
    const crashAfterSecondDone = () => {
      let seen = 0;
      return {
        onAfterSync(record: { t: string }) {
          if (record.t === 'done' && ++seen === 2) throw new Error('killed');
        },
      };
    };
    const first = await runDurablyIn(dir, emulator, { client, concurrency: 1, journalHooks: crashAfterSecondDone() });
    const runId = first.outcome.runId;
    await runDurablyIn(dir, emulator, { client, concurrency: 1, runId, journalHooks: crashAfterSecondDone() });
    const last = await runDurablyIn(dir, emulator, { client, runId });
    expect(last.outcome.status).toBe('done');
    const delta = Math.round((before - (await client.balance()).balance) * 1e6) / 1e6;
    expect(delta).toBeGreaterThan(0);

    const report = new RunReportBuilder();
    for (const event of last.events) report.handle(event);
    const summary = report.summary();
    expect(summary.totals.cost_actual).toBe(delta);
    expect(last.outcome.spent).toBe(delta);
    expect(summary.steps.map((s) => s.cost_actual).every((c) => c > 0)).toBe(true);
    expect(summary.invocations.map((i) => [i.index, i.current])).toEqual([[1, false], [2, false], [3, true]]);
    expect(summary.invocations.slice(0, 2).every((i) => i.cost_actual > 0)).toBe(true);
    expect(Math.round(summary.invocations.reduce((sum, i) => sum + i.cost_actual, 0) * 1e6) / 1e6).toBe(delta);
    expect(duplicateJobs(emulator)).toEqual([]);
  });
});
