/**
 * Writes the price of every entry once the requests are answered: exact or derived from an
 * answer, fitted from its class's line, estimated within a range, or unknown with the reason.
 */
import { roundUsd } from '../../common/index.js';
import { type FitTolerance, predictPrice } from './price-fit.js';
import { classRequest, type Entry, type PriceClass } from './quote-entries.js';
import type { Range } from './quote-estimate.js';
import type { PriceAnswer, PriceBook } from './quote-price-book.js';
import { formatNumber } from './quote-prepare.js';
import type { DerivedFrom, QuotedItem } from './quote-types.js';

/** A price at one value of a class: answered by the twin, or read off the fitted line. */
type ClassPrice =
  | { readonly ok: true; readonly price: number; readonly answer: Extract<PriceAnswer, { ok: true }> | null; readonly key: string }
  | { readonly ok: false; readonly reason: string; readonly refused?: string };

export interface AssembleContext {
  readonly book: PriceBook;
  readonly tolerance: FitTolerance;
  /** First item that sent each request, so later identical ones say which they derive from. */
  readonly owners: Map<string, { step: string; index: number }>;
}

function priceAt(cls: PriceClass, x: number, ctx: AssembleContext): ClassPrice {
  const request = classRequest(cls, x);
  const answer = ctx.book.peek(request.key);
  if (answer?.ok) return { ok: true, price: answer.price, answer, key: request.key };
  if (cls.outcome === 'fitted' && cls.fit) return { ok: true, price: predictPrice(cls.fit, x), answer: null, key: request.key };
  if (answer && !answer.ok) return answer;
  return { ok: false, reason: cls.refusal ? `not quoted: ${cls.refusal}` : 'not quoted' };
}

const margin = (price: number, tolerance: FitTolerance): number => Math.max(tolerance.relative * Math.abs(price), tolerance.absolute);

/** The quoted form of one entry of step `stepId`. */
export function assembleItem(stepId: string, entry: Entry, ctx: AssembleContext): QuotedItem {
  const { item } = entry;
  const head = { index: item.index, key: item.key };
  const withAssumption = entry.assumptions.length > 0 ? { assumption: entry.assumptions.join('; ') } : {};
  if (entry.kind === 'unknown') {
    const wouldKnow = entry.wouldKnow ? { would_know: entry.wouldKnow } : {};
    return { ...head, price: null, low: null, high: null, method: 'unknown', basis: entry.reason, reason: entry.reason, ...wouldKnow };
  }

  if (entry.kind === 'sized-estimate') return assembleSizedEstimate(head, entry, ctx, withAssumption);

  const answer = entry.cls && entry.x !== null ? priceAt(entry.cls, entry.x, ctx) : plainPrice(entry.request.key, ctx);
  const x = entry.x !== null ? { x: entry.x, ...(entry.cls ? { class: entry.cls.id } : {}) } : {};
  if (!answer.ok) {
    const refused = answer.refused === undefined ? {} : { refused: answer.refused };
    return { ...head, ...x, price: null, low: null, high: null, method: 'unknown', basis: answer.reason, reason: answer.reason, ...refused };
  }
  const price = roundUsd(answer.price);
  if (entry.workflow && entry.assumptions.length === 0 && answer.answer !== null) {
    const from = { source: 'workflow' as const, step: entry.workflow.step };
    return { ...head, ...x, price, low: price, high: price, method: 'derived', basis: `price twin with ${entry.workflow.what}`, derived_from: from };
  }
  if (entry.estimated) {
    return {
      ...head,
      ...x,
      price,
      low: price,
      high: price,
      method: 'estimated',
      basis: `price twin${entry.note ? `, ${entry.note}` : ''}, without the pending upstream values`,
      ...withAssumption,
    };
  }
  if (answer.answer === null) {
    const cls = entry.cls!;
    const m = margin(answer.price, ctx.tolerance);
    return {
      ...head,
      ...x,
      price,
      low: roundUsd(answer.price - m),
      high: roundUsd(answer.price + m),
      method: 'fitted',
      basis: `line fitted on ${cls.fittedOn?.length ?? 0} quotes of class ${cls.id} (${cls.variable.name}=${formatNumber(entry.x!)}), held-out error ${cls.check?.error_pct ?? 0}%`,
      ...(cls.fittedOn ? { fitted_on: cls.fittedOn } : {}),
      ...(cls.check ? { check: cls.check } : {}),
    };
  }
  const derived = derivation(answer.key, answer.answer, stepId, item.index, ctx);
  if (derived) {
    const from = derived.source === 'cache' ? `quote cache (answered ${formatAge(derived.age_s ?? 0)} ago)` : `same request as ${derived.step}[${derived.index}]`;
    return { ...head, ...x, price, low: price, high: price, method: 'derived', basis: from, derived_from: derived };
  }
  return { ...head, ...x, price, low: price, high: price, method: 'exact', basis: `price twin${entry.note ? `, ${entry.note}` : ''}` };
}

function plainPrice(key: string, ctx: AssembleContext): ClassPrice {
  const answer = ctx.book.peek(key);
  if (answer?.ok) return { ok: true, price: answer.price, answer, key };
  return answer && !answer.ok ? answer : { ok: false, reason: 'not quoted' };
}

function derivation(
  key: string,
  answer: Extract<PriceAnswer, { ok: true }>,
  step: string,
  index: number,
  ctx: AssembleContext,
): DerivedFrom | undefined {
  if (answer.origin === 'cache') return { source: 'cache', age_s: Math.round(answer.ageMs / 1000) };
  const owner = ctx.owners.get(key);
  if (!owner) {
    ctx.owners.set(key, { step, index });
    return undefined;
  }
  return owner.step === step && owner.index === index ? undefined : { source: 'run', step: owner.step, index: owner.index };
}

function assembleSizedEstimate(
  head: { index: number; key: string },
  entry: Extract<Entry, { kind: 'sized-estimate' }>,
  ctx: AssembleContext,
  withAssumption: { assumption?: string },
): QuotedItem {
  const { cls, size } = entry;
  const at = (v: number): ClassPrice => priceAt(cls, v, ctx);
  const [point, low, high] = [at(size.point), at(size.low), at(size.high)];
  if (!point.ok || !low.ok || !high.ok) {
    const reason = [point, low, high].find((p): p is Extract<ClassPrice, { ok: false }> => !p.ok)?.reason ?? 'not quoted';
    return { ...head, class: cls.id, price: null, low: null, high: null, method: 'unknown', basis: reason, reason, ...withAssumption };
  }
  const fromLine = point.answer === null || low.answer === null || high.answer === null;
  const widen = (p: ClassPrice & { ok: true }, sign: 1 | -1): number =>
    p.answer === null ? p.price + sign * margin(p.price, ctx.tolerance) : p.price;
  const name = cls.variable.name;
  const range = (r: Range): string => `${name}≈${formatNumber(r.point)} (range ${formatNumber(r.low)}–${formatNumber(r.high)})`;
  if (entry.workflow && entry.assumptions.length === 0 && !fromLine && size.low === size.high) {
    const price = roundUsd(point.price);
    const from = { source: 'workflow' as const, step: entry.workflow.step };
    return { ...head, x: size.point, class: cls.id, price, low: price, high: price, method: 'derived', basis: `price twin at ${entry.workflow.what}`, derived_from: from };
  }
  return {
    ...head,
    x: size.point,
    class: cls.id,
    price: roundUsd(point.price),
    low: roundUsd(Math.max(0, widen(low, -1))),
    high: roundUsd(widen(high, 1)),
    method: 'estimated',
    basis: `${fromLine ? `line of class ${cls.id}` : 'price twin'} at ${range(size)}`,
    ...withAssumption,
  };
}

function formatAge(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
