/**
 * A Quote as text for a terminal: one row per step (items, unit price or range, subtotal, how
 * the prices were obtained), the total, the balance and budget, the number of price requests,
 * then the fits, assumptions and unknown items that explain the figures.
 */
import type { QuoteComparison, QuoteDelta } from '../engine/index.js';
import type { PriceMethod, QuotedStep, Quote, QuoteTotal } from '../engine/index.js';
import { formatCost, formatTotal } from './format-cost.js';

/** Unknown items listed per quote before "… and N more". */
export const MAX_LISTED_UNKNOWN = 20;

/** A unit price: micro-dollar precision below a cent (a transcription second costs $0.000014). */
export function formatUnitPrice(usd: number): string {
  return Math.abs(usd) < 0.01 ? `$${usd.toFixed(6)}` : formatCost(usd);
}

/** `$0.001200` or `$0.000100–$0.008300`, or `—` when no item has a price. */
export function formatUnitRange(step: QuotedStep): string {
  const range = step.unit_price;
  if (!range) return '—';
  return range.min === range.max ? formatUnitPrice(range.min) : `${formatUnitPrice(range.min)}–${formatUnitPrice(range.max)}`;
}

/** The point and the high end; a lower bound when items have no price. */
export function formatSubtotal(total: QuoteTotal): string {
  return formatTotal(total);
}

/** The estimated part: its point, and its range when it has one. */
export function formatEstimated(total: QuoteTotal): string {
  const e = total.estimated;
  const [low, high] = [formatCost(e.low), formatCost(e.high)];
  return low === high ? formatCost(e.point) : `${formatCost(e.point)} (${low}–${high})`;
}

/** "4 exact, 996 fitted". */
export function describeCounts(counts: Readonly<Record<PriceMethod, number>>): string {
  const parts = (Object.entries(counts) as [PriceMethod, number][]).filter(([, n]) => n > 0).map(([m, n]) => `${n} ${m}`);
  return parts.length > 0 ? parts.join(', ') : 'no items';
}

/** "4 exact, 996 fitted, 3 already had". */
export function describeStepCounts(step: QuotedStep): string {
  const held = step.already_have.items;
  if (held === 0) return describeCounts(step.counts);
  const priced = Object.values(step.counts).some((n) => n > 0) ? `${describeCounts(step.counts)}, ` : '';
  return `${priced}${held} already had`;
}

/** A change as `+$0.1234 (+3.10%)`, `new` or `removed`. */
export function formatChange(d: QuoteDelta): string {
  if (d.before === null) return 'new';
  if (d.after === null) return 'removed';
  const sign = d.change > 0 ? '+' : d.change < 0 ? '-' : '±';
  const pct = d.change_pct === null ? '' : ` (${d.change_pct > 0 ? '+' : ''}${d.change_pct}%)`;
  return `${sign}${formatCost(Math.abs(d.change))}${pct}`;
}

/** One-line verdicts on the balance and the budget; never "within" or "enough" for a total that could not be computed. */
export function budgetLines(quote: Quote): { balance: string; budget: string | null } {
  const { total } = quote;
  const unpriced = total.unknown_items > 0;
  let balance: string;
  if (quote.balance === null) balance = 'unknown (could not be read)';
  else if (quote.prices_unavailable) balance = `${formatCost(quote.balance)} — not compared: prices could not be obtained`;
  else if (quote.over_balance) balance = `${formatCost(quote.balance)} — NOT enough for ${formatCost(total.high)} (the high end)`;
  else if (total.high > quote.balance) balance = `${formatCost(quote.balance)} — enough for the point estimate, not for the high end (${formatCost(total.high)})`;
  else balance = `${formatCost(quote.balance)} — enough${unpriced ? ' for the priced items' : ''}`;
  if (quote.max_cost === null) return { balance, budget: null };
  const cap = formatCost(quote.max_cost);
  const verdicts: Record<Quote['verdict'], string> = {
    unavailable: `${cap} — NOT CHECKED: prices could not be obtained`,
    unpriced: `${cap} — FAILS: ${total.unknown_items} item(s) unpriced (--allow-unpriced to run them under per-job reservations)`,
    'over-budget': `${cap} — OVER: the high end ${formatCost(total.high)} is above it by ${formatCost(total.high - quote.max_cost)}`,
    'over-balance': `${cap} — within (high end ${formatCost(total.high)})`,
    within: `${cap} — within (high end ${formatCost(total.high)}${unpriced ? `; ${total.unknown_items} unpriced item(s) allowed` : ''})`,
    'no-budget': cap,
  };
  return { balance, budget: verdicts[quote.verdict] };
}

/** Explanations shared by the text and Markdown forms: fits, refusals, assumptions, unknown items. */
export function explanationLines(quote: Quote): { fits: string[]; assumptions: string[]; unknown: string[]; moreUnknown: number } {
  const fits: string[] = [];
  const assumptions: string[] = [];
  const unknown: string[] = [];
  let moreUnknown = 0;
  for (const step of quote.steps) {
    for (const cls of step.classes) {
      if (!cls.fitted_on || !cls.check) continue;
      const on = cls.fitted_on.map((p) => `${trim(p.x)} → ${formatUnitPrice(p.price)}`).join(', ');
      const check = `held out ${trim(cls.check.x)}: quoted ${formatUnitPrice(cls.check.quoted)}, predicted ${formatUnitPrice(cls.check.predicted)} (${cls.check.error_pct}% off)`;
      const verdict = cls.outcome === 'fitted' ? `fitted over ${cls.items} items` : `fit refused over ${cls.items} items (not linear), each value quoted`;
      fits.push(`${step.id} ${cls.id} (${cls.variable}): ${verdict}; line on ${on}; ${check}`);
    }
    for (const a of step.assumptions) assumptions.push(`${step.id}: ${a}`);
    for (const item of step.quoted_items) {
      if (item.method !== 'unknown') continue;
      if (quote.prices_unavailable) {
        moreUnknown++;
        continue;
      }
      const known = item.would_know ? ` (known with: ${item.would_know})` : '';
      if (unknown.length < MAX_LISTED_UNKNOWN) unknown.push(`${step.id}[${item.index}] ${item.key}: ${item.reason ?? item.basis}${known}`);
      else moreUnknown++;
    }
  }
  return { fits, assumptions, unknown, moreUnknown };
}

const trim = (x: number): string => (Number.isInteger(x) ? String(x) : String(Number(x.toFixed(3))));

/** The unknown items listed, then how many more (all of them, in one line, when no price could be obtained). */
export function unknownLines(quote: Quote, why: ReturnType<typeof explanationLines>): string[] {
  if (quote.prices_unavailable) return why.moreUnknown > 0 ? [`${why.moreUnknown} item(s): no price could be obtained (see above)`] : [];
  return [...why.unknown, ...(why.moreUnknown > 0 ? [`… and ${why.moreUnknown} more`] : [])];
}

/** Pads columns: left-aligned text, right-aligned numbers. */
function columns(rows: readonly (readonly string[])[], right: ReadonlySet<number>): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * "3 item(s) already had, $0.0120 when paid once (priced $0: the result cache or this run's journal holds them)".
 * Quotes written before `already_have` existed say nothing held.
 */
export function formatAlreadyHave(quote: Quote): string {
  const have = quote.already_have;
  if (have.items === 0) return 'nothing yet: every item is to pay';
  return `${have.items} item(s) already had, ${formatCost(have.cost)} when paid once (priced $0: the result cache or this run's journal holds them)`;
}

/** The quote as plain text. */
export function renderQuoteTable(quote: Quote, comparison?: QuoteComparison): string {
  const lines: string[] = [`Quote for ${quote.workflow}`, ''];
  const header = ['STEP', 'TASK', 'MODEL', 'ITEMS', 'HAVE', 'UNIT PRICE', 'TO PAY', 'HOW OBTAINED'];
  const rows = quote.steps.map((s) => [s.id, s.task, s.model ?? '-', String(s.items), String(s.already_have.items), formatUnitRange(s), formatSubtotal(s.subtotal), describeStepCounts(s)]);
  lines.push(...columns([header, ...rows], new Set([3, 4])), '');
  const t = quote.total;
  if (quote.prices_unavailable) lines.push(`PRICES COULD NOT BE OBTAINED: ${quote.prices_unavailable.message}`, '');
  lines.push(`To pay:    ${formatSubtotal(t)}  (exact ${formatCost(t.exact)} + estimated ${formatEstimated(t)})`);
  lines.push(`Have:      ${formatAlreadyHave(quote)}`);
  const verdicts = budgetLines(quote);
  lines.push(`Balance:   ${verdicts.balance}`);
  if (verdicts.budget) lines.push(`Budget:    ${verdicts.budget}`);
  lines.push(`Price requests sent: ${quote.price_requests}${quote.cache_hits > 0 ? ` (${quote.cache_hits} answers from the quote cache)` : ''}`);
  const why = explanationLines(quote);
  const section = (title: string, entries: readonly string[]): void => {
    if (entries.length > 0) lines.push('', `${title}:`, ...entries.map((e) => `  ${e}`));
  };
  section('Fits', why.fits);
  section('Assumptions', why.assumptions);
  section('Unknown', unknownLines(quote, why));
  section('Warnings', quote.warnings);
  if (comparison) {
    lines.push('', `Change against ${comparison.previous}:`);
    const change = [['STEP', 'BEFORE', 'AFTER', 'CHANGE'], ...[...comparison.steps, comparison.total].map((d) => [d.id, formatCost(d.before), formatCost(d.after), formatChange(d)])];
    lines.push(...columns(change, new Set([1, 2])).map((l) => `  ${l}`));
  }
  return `${lines.join('\n')}\n`;
}
