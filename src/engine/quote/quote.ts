/**
 * `quoteRun`: the price of every node of an expanded workflow before anything is spent, with
 * how each was obtained, in as few price requests as the answer allows. Nothing is submitted.
 *
 * 1. Prepare: each item becomes the price-twin request it would send, with media lengths read
 *    locally in place of uploads and text counted in place of sending it; items that differ
 *    only in that size fall into a class; items whose inputs are pending upstream get a size
 *    range from what is known upstream.
 * 2. Resolve: classes with few distinct sizes are quoted size by size; larger ones are fitted
 *    on three quotes and checked on a fourth; everything else is quoted request by request,
 *    each identical request once, cached answers reused.
 * 3. Assemble: a price, a range and a basis per item; totals per step and overall; the balance.
 */
import { readFile } from 'node:fs/promises';
import pLimit from 'p-limit';
import { type Clock, DEFAULT_FIT_THRESHOLD, DEFAULT_MAX_PRICE_REQUESTS, fanOutSignal, formatUsd, roundUsd, systemClock } from '../../common/index.js';
import type { RunEventSink } from '../contracts/events.js';
import { createFileDigester } from '../cache/index.js';
import { createDurationReader } from './media-duration.js';
import { DEFAULT_FIT_TOLERANCE, type FitTolerance } from './price-fit.js';
import { type AssembleContext, assembleItem } from './quote-assemble.js';
import type { QuoteCache } from './quote-cache.js';
import { ClassRegistry, classRequest, type PriceClass, type StepState } from './quote-entries.js';
import type { ImageSize } from './quote-estimate.js';
import { decideGate } from './quote-gate.js';
import type { QuoteInput, QuoteItem, QuoteStep } from './quote-input.js';
import type { PendingSource } from './quote-pending.js';
import { type PreparedItem, prepareItem } from './quote-prepare.js';
import { PriceBook, type PriceSource } from './quote-price-book.js';
import { resolvePrices } from './quote-resolve.js';
import { HaveAccumulator, TotalAccumulator } from './quote-totals.js';
import type { FitPoint, HeldItem, QuotedClass, QuotedItem, QuotedStep, Quote } from './quote-types.js';
import { inferUrlLength } from './url-length.js';

export type { PriceSource } from './quote-price-book.js';

export interface QuoteOptions {
  /** Where prices and the balance come from (the client). */
  readonly prices: PriceSource;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Answers reused and recorded (see quote-cache.ts); none when absent. */
  readonly cache?: QuoteCache | undefined;
  /** Budget in USD; overrides the workflow's `budget.max_cost`. */
  readonly maxCost?: number | null | undefined;
  /**
   * `--allow-unpriced`: items with no price do not fail the budget gate.
   * @default false
   */
  readonly allowUnpriced?: boolean;
  /**
   * Most price requests to send; beyond it, items are `unknown`.
   * @default 200
   */
  readonly maxPriceRequests?: number;
  /**
   * Distinct values of a size variable beyond which a class is fitted rather than quoted value by value.
   * @default 6
   */
  readonly fitThreshold?: number;
  /** @default 0.5 % or 1e-6 USD */
  readonly tolerance?: FitTolerance;
  /**
   * Price requests waiting on the client's governor at once.
   * @default 16
   */
  readonly concurrency?: number;
  /**
   * Read the balance and compare.
   * @default true
   */
  readonly checkBalance?: boolean;
  readonly signal?: AbortSignal | undefined;
  /** Receives the `quoted` event. */
  readonly onEvent?: RunEventSink | undefined;
}

export { DEFAULT_FIT_THRESHOLD, DEFAULT_MAX_PRICE_REQUESTS };
/** Items prepared at once (each may read a file's header and digest it). */
const PREPARE_CONCURRENCY = 8;

/** Quotes every node of `input`. Sends price requests and one balance read; never submits a job. */
export async function quoteRun(input: QuoteInput, quoteOptions: QuoteOptions): Promise<Quote> {
  // Up to `concurrency` price requests wait on the caller's signal at once (one abort listener each).
  const shared = fanOutSignal(quoteOptions.signal);
  try {
    return await quoteWith(input, { ...quoteOptions, signal: shared.signal });
  } finally {
    shared.dispose();
  }
}

async function quoteWith(input: QuoteInput, options: QuoteOptions): Promise<Quote> {
  const clock = options.clock ?? systemClock;
  const tolerance = options.tolerance ?? DEFAULT_FIT_TOLERANCE;
  const warnings: string[] = [];
  const balance = readBalance(options, warnings);

  const classes = new ClassRegistry();
  const book = new PriceBook({
    source: options.prices,
    cache: options.cache,
    maxRequests: options.maxPriceRequests ?? DEFAULT_MAX_PRICE_REQUESTS,
    concurrency: options.concurrency ?? 16,
    signal: options.signal,
  });
  const states = await prepareSteps(input.steps, { classes, book, tolerance, signal: options.signal });
  await resolvePrices(classes.all(), allEntries(states), book, { fitThreshold: options.fitThreshold ?? DEFAULT_FIT_THRESHOLD, tolerance });

  const ctx: AssembleContext = { book, tolerance, owners: new Map() };
  const grand = new TotalAccumulator();
  const grandHave = new HaveAccumulator();
  const steps: QuotedStep[] = [];
  for (const state of states) {
    const step = assembleStep(state, ctx);
    grand.merge(step.acc);
    grandHave.merge(step.have);
    steps.push(step.quoted);
  }
  options.cache?.save();

  const total = grand.total();
  const maxCost = options.maxCost ?? input.maxCost ?? null;
  const allowUnpriced = options.allowUnpriced ?? false;
  const balanceUsd = await balance;
  const unavailable = book.unavailable;
  const gate = decideGate({ total, maxCost, allowUnpriced, balance: balanceUsd, unavailable });
  const quote: Quote = {
    format_version: 2,
    workflow: input.workflow,
    created_at: new Date(clock.now()).toISOString(),
    currency: 'USD',
    to_pay: total,
    already_have: grandHave.total(),
    total,
    price_requests: book.sent,
    cache_hits: book.cacheHits,
    balance: balanceUsd,
    max_cost: maxCost,
    allow_unpriced: allowUnpriced,
    over_budget: gate.overBudget,
    over_balance: gate.overBalance,
    verdict: gate.verdict,
    verdict_reason: gate.reason,
    prices_unavailable: unavailable,
    steps,
    warnings: [...warnings, ...summaryWarnings(steps, total, maxCost)],
  };
  options.onEvent?.({
    type: 'quoted',
    ts: clock.now(),
    total: { exact: total.exact, estimated: total.estimated, point: total.point, low: total.low, high: total.high, unknownItems: total.unknown_items },
    priceRequests: quote.price_requests,
    balance: quote.balance,
    maxCost,
    verdict: quote.verdict,
    reason: quote.verdict_reason,
  });
  return quote;
}

function readBalance(options: QuoteOptions, warnings: string[]): Promise<number | null> {
  if (options.checkBalance === false) return Promise.resolve(null);
  return options.prices.balance(options.signal ? { signal: options.signal } : {}).then(
    (usd) => usd,
    (error: unknown) => {
      warnings.push(`the balance could not be read: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    },
  );
}

interface PrepareOptions {
  readonly classes: ClassRegistry;
  readonly book: PriceBook;
  readonly tolerance: FitTolerance;
  readonly signal: AbortSignal | undefined;
}

async function prepareSteps(steps: readonly QuoteStep[], options: PrepareOptions): Promise<StepState[]> {
  const digester = createFileDigester();
  const durations = createDurationReader();
  const byId = new Map<string, StepState>();
  const read = new Set<string>();
  for (const step of steps) {
    if (step.upstream) read.add(step.upstream);
    for (const r of Object.values(step.reads ?? {})) read.add(r.step);
  }
  const sourceOf = (step: QuoteStep, item: QuoteItem, field: string): PendingSource => {
    const own = step.reads?.[field];
    const id = own?.step ?? step.upstream;
    const up = id ? byId.get(id) : undefined;
    const indexes = own
      ? own.edge === 'all'
        ? Array.from({ length: up?.step.items ?? 0 }, (_, j) => j)
        : own.edge === 'one'
          ? [0]
          : [item.index]
      : (item.upstreamIndexes ?? [item.index]);
    return { step: id, task: up?.step.task, items: up ? indexes.map((i) => up.facts.get(i)) : [], path: own?.path };
  };
  const ctx = {
    digest: (p: string) => digester.digest(p),
    durations,
    imageSize: readImageSize,
    classes: options.classes,
    sourceOf,
    readDownstream: (id: string) => read.has(id),
    urlLength: (task: Parameters<typeof inferUrlLength>[1], variable: Parameters<typeof inferUrlLength>[2], fields: Readonly<Record<string, unknown>>, urlField: string) =>
      inferUrlLength(options.book, task, variable, fields, urlField, options.tolerance),
  };
  const limit = pLimit(PREPARE_CONCURRENCY);
  const states: StepState[] = [];
  for (const step of steps) {
    const state: StepState = { step, model: null, entries: [], facts: new Map(), held: [] };
    const pending: Promise<PreparedItem>[] = [];
    // Held items are not priced: prepared only for what a downstream step reads of them, in classes of their own that are never quoted.
    const heldPending: Promise<PreparedItem>[] = [];
    const scratch = { ...ctx, classes: new ClassRegistry() };
    for await (const item of step.iterate()) {
      options.signal?.throwIfAborted();
      if (item.held) {
        state.held.push(item);
        if (read.has(step.id)) heldPending.push(limit(() => prepareItem(step, item, scratch)));
      } else pending.push(limit(() => prepareItem(step, item, ctx)));
    }
    for (const prepared of await Promise.all(pending)) {
      state.entries.push(prepared.entry);
      state.facts.set(prepared.entry.item.index, prepared.facts);
      state.model ??= prepared.model;
    }
    for (const prepared of await Promise.all(heldPending)) {
      state.facts.set(prepared.entry.item.index, prepared.facts);
      state.model ??= prepared.model;
    }
    byId.set(step.id, state);
    states.push(state);
  }
  return states;
}

/** The pixel size of a local image (its header only), or undefined. */
async function readImageSize(path: string): Promise<ImageSize | undefined> {
  try {
    const { imageSize } = await import('image-size');
    const { width, height } = imageSize(await readFile(path));
    return width && height ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

function* allEntries(states: readonly StepState[]) {
  for (const state of states) yield* state.entries;
}

function assembleStep(state: StepState, ctx: AssembleContext): { quoted: QuotedStep; acc: TotalAccumulator; have: HaveAccumulator } {
  const acc = new TotalAccumulator();
  const have = new HaveAccumulator();
  const priced = state.entries.map((entry) => assembleItem(state.step.id, entry, ctx));
  for (const item of priced) acc.add(item);
  const held = state.held.map((item) => heldItem(item, item.held!));
  for (const item of held) have.add(item.held!);
  const items = held.length === 0 ? priced : [...priced, ...held].sort((a, b) => a.index - b.index);
  const classes = new Map<string, PriceClass>();
  const assumptions = new Set<string>();
  for (const entry of state.entries) {
    if (entry.kind !== 'unknown' && entry.cls) classes.set(entry.cls.id, entry.cls);
    for (const a of entry.assumptions) assumptions.add(a);
  }
  const quoted: QuotedStep = {
    id: state.step.id,
    task: state.step.task,
    model: state.model,
    items: items.length,
    subtotal: acc.total(),
    already_have: have.total(),
    counts: acc.counts(),
    unit_price: acc.unitRange(),
    classes: [...classes.values()].map((cls) => describeClass(cls, ctx)),
    assumptions: [...assumptions],
    quoted_items: items,
  };
  return { quoted, acc, have };
}

/** An item the run already has: $0, with where it is held and what it cost once. */
function heldItem(item: QuoteItem, held: HeldItem): QuotedItem {
  const once = held.cost === null ? '' : ` (it cost ${formatUsd(held.cost)} once)`;
  const where = held.source === 'cache' ? 'its result is in the result cache' : 'an earlier session of this run has it';
  return { index: item.index, key: item.key, price: 0, low: 0, high: 0, method: 'exact', basis: `already have: ${where}${once}; nothing to pay`, held };
}

function describeClass(cls: PriceClass, ctx: AssembleContext): QuotedClass {
  const points: FitPoint[] = [];
  for (const x of [...cls.xs].sort((a, b) => a - b)) {
    const answer = ctx.book.peek(classRequestKey(cls, x));
    if (answer?.ok) points.push({ x, price: roundUsd(answer.price) });
  }
  return {
    id: cls.id,
    variable: cls.variable.name,
    fields: cls.shownTemplate,
    items: cls.items,
    distinct: cls.xs.size,
    outcome: cls.outcome,
    ...(cls.fit ? { line: { slope: cls.fit.slope, intercept: cls.fit.intercept } } : {}),
    ...(cls.fittedOn ? { fitted_on: cls.fittedOn } : {}),
    ...(cls.check ? { check: cls.check } : {}),
    ...(points.length > 0 ? { points } : {}),
  };
}

function summaryWarnings(steps: readonly QuotedStep[], total: Quote['total'], maxCost: number | null): string[] {
  const out: string[] = [];
  if (total.unknown_items > 0) out.push(`${total.unknown_items} item(s) have no price: the total is a lower bound`);
  for (const step of steps) {
    for (const cls of step.classes) {
      if (cls.outcome === 'refused' && cls.check && !cls.check.accepted) {
        out.push(`step ${step.id}: class ${cls.id} is not linear in ${cls.variable}; its values were quoted one by one`);
      }
    }
  }
  if (maxCost !== null && total.high > maxCost && total.point <= maxCost) {
    out.push(`the point estimate ($${total.point}) is within max_cost ($${maxCost}) but its high end ($${total.high}) is not: the gate compares the high end`);
  }
  return out;
}

const classRequestKey = (cls: PriceClass, x: number): string => classRequest(cls, x).key;
