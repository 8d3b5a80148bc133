/**
 * What {@link quoteRun} needs from an expanded workflow, kept small so the quote does not
 * depend on the workflow layer's types (quote-input-from-graph.ts adapts a JobGraph to it).
 */
import type { TaskId } from '../../service/index.js';
import type { HeldItem } from './quote-types.js';

/** One node of a step, with its `with` resolved as far as it can be before anything runs. */
export interface QuoteItem {
  /** The run already has this item (priced $0, shown apart). */
  readonly held?: HeldItem;
  readonly index: number;
  /** Stable identity of the item across runs (relative path, or a digest of the item value). */
  readonly key: string;
  /** Resolved request fields by the service's own names; a file field is `{ path }`. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Field names whose value comes from an upstream result not produced yet (their value in `fields` is ignored). */
  readonly pending: readonly string[];
  /**
   * Indexes of the upstream step's items whose results feed the pending fields.
   * @default [index] (a per-item chain: item k reads upstream item k)
   */
  readonly upstreamIndexes?: readonly number[];
}

/** What one pending field reads of an upstream step. */
export interface PendingRead {
  /** The upstream step. */
  readonly step: string;
  /** The property path after the step id: `['text']`, `['json', 'text']`, `['result_url']`. */
  readonly path: readonly (string | null)[];
  /** Which of its items node k reads: item k (a chain), all of them (a gather), or the first. */
  readonly edge: 'item' | 'all' | 'one';
}

/** One step: its task, how many items it fans out to, and the items themselves, lazily. */
export interface QuoteStep {
  readonly id: string;
  readonly task: TaskId;
  readonly items: number;
  iterate(): AsyncIterable<QuoteItem>;
  /** The step whose results feed the pending fields, or null. */
  readonly upstream: string | null;
  /** Per pending field, what it reads upstream; fields not listed read `upstream` through `upstreamIndexes`. */
  readonly reads?: Readonly<Record<string, PendingRead>>;
}

/** A workflow as the quote sees it: steps in an order where every upstream step comes first. */
export interface QuoteInput {
  /** The workflow file (or its name), for the report. */
  readonly workflow: string;
  readonly steps: readonly QuoteStep[];
  /** `budget.max_cost` of the workflow, in USD. */
  readonly maxCost?: number | null;
}
