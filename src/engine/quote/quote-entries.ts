/**
 * The working state of one quote between its phases: each item prepared into an entry (a
 * request to price, a size range to price within its class, or unknown), and the price
 * classes those entries share. Internal to quote*.ts.
 */
import type { TaskId } from '../../service/index.js';
import type { LinearFit } from './price-fit.js';
import { classKey, placeholderTexts, requestKey, type SizeVariable } from './price-classes.js';
import type { QuoteItem, QuoteStep } from './quote-input.js';
import type { OutputFacts, Range } from './quote-estimate.js';
import type { PriceRequest } from './quote-price-book.js';
import type { FitCheck, FitPoint } from './quote-types.js';

/** Requests of one task differing only in the size variable. */
export interface PriceClass {
  readonly id: string;
  readonly key: string;
  readonly task: TaskId;
  readonly variable: SizeVariable;
  /** Fields to send, without the variable. */
  readonly template: Readonly<Record<string, unknown>>;
  /** The same with files by digest. */
  readonly shownTemplate: Readonly<Record<string, unknown>>;
  /** Every value of the variable some item needs a price at. */
  readonly xs: Set<number>;
  /** Texts a placeholder variable's characters are split over (a gathered list). */
  readonly parts: number;
  items: number;
  outcome: 'exact' | 'fitted' | 'refused';
  fit?: LinearFit;
  fittedOn?: readonly FitPoint[];
  check?: FitCheck;
  refusal?: string;
}

interface EntryBase {
  readonly item: QuoteItem;
  /** Assumptions behind an estimate (empty for a plain quote). */
  readonly assumptions: readonly string[];
}

/** A pending input priced from what the workflow fixes upstream, with no assumption: the price is derived. */
export interface WorkflowBasis {
  /** The upstream step whose fixed fields decide the input. */
  readonly step: string;
  /** What was priced in its place, for the basis line ("a 512×512 placeholder image"). */
  readonly what: string;
}

export type Entry =
  | (EntryBase & {
      readonly kind: 'request';
      readonly request: PriceRequest;
      readonly cls: PriceClass | null;
      readonly x: number | null;
      /** How the request was built, for the basis line ("duration_seconds read locally"). */
      readonly note: string;
      /** Some fields were pending and were left out as price-neutral. */
      readonly estimated: boolean;
      /** Set when the pending inputs were priced from what the workflow fixes. */
      readonly workflow?: WorkflowBasis;
    })
  | (EntryBase & { readonly kind: 'sized-estimate'; readonly cls: PriceClass; readonly size: Range; readonly workflow?: WorkflowBasis })
  | (EntryBase & { readonly kind: 'unknown'; readonly reason: string; readonly wouldKnow?: string });

export interface StepState {
  readonly step: QuoteStep;
  model: string | null;
  readonly entries: Entry[];
  /** What each item's result will be, by item index (read by downstream steps). */
  readonly facts: Map<number, OutputFacts | undefined>;
  /** Items the run already has: not priced (quote.ts shows them at $0). */
  readonly held: QuoteItem[];
}

/** The request of class `cls` at value `x` (a placeholder text of `x` characters for a placeholder variable). */
export function classRequest(cls: PriceClass, x: number): PriceRequest {
  const { name, via, replaces } = cls.variable;
  const shown = { ...cls.shownTemplate, [name]: x };
  const fields = via === 'placeholder-text' && replaces ? { ...cls.template, [replaces]: placeholderTexts(x, cls.parts) } : { ...cls.template, [name]: x };
  return { key: requestKey(cls.task, shown), task: cls.task, fields, shown };
}

/** The classes of one quote, created on first use. */
export class ClassRegistry {
  readonly #byKey = new Map<string, PriceClass>();

  /** The class of requests of `task` sharing `shownTemplate`. */
  classFor(task: TaskId, variable: SizeVariable, template: Record<string, unknown>, shownTemplate: Record<string, unknown>, parts = 1): PriceClass {
    const shownWithParts = parts > 1 ? { ...shownTemplate, [`${variable.replaces ?? variable.name}_items`]: parts } : shownTemplate;
    const key = classKey(task, variable.name, shownWithParts);
    let cls = this.#byKey.get(key);
    if (!cls) {
      cls = { id: `c${this.#byKey.size + 1}`, key, task, variable, template, shownTemplate: shownWithParts, xs: new Set(), parts, items: 0, outcome: 'exact' };
      this.#byKey.set(key, cls);
    }
    return cls;
  }

  all(): PriceClass[] {
    return [...this.#byKey.values()];
  }
}
