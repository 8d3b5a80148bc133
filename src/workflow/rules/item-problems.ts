import { WorkflowError } from '../workflow-error.js';

/**
 * Collects per-item problems so that a fan-out of 100,000 bad items prints one line per
 * field and kind of problem (the first item, then "and N more items"), not 100,000.
 */
export class ItemProblems {
  readonly #first = new Map<string, { error: WorkflowError; more: number }>();

  /**
   * Records a problem; `key` groups problems that are the same mistake on different items.
   * Pass a function to build the error only for the first of its group (errors capture a
   * stack, which is costly 100,000 times over).
   */
  add(key: string, error: WorkflowError | (() => WorkflowError)): void {
    const seen = this.#first.get(key);
    if (seen) seen.more++;
    else this.#first.set(key, { error: typeof error === 'function' ? error() : error, more: 0 });
  }

  /** The first problem of each group, with how many more items had it. */
  flush(report: (error: WorkflowError) => void): void {
    for (const { error, more } of this.#first.values()) {
      if (more === 0) report(error);
      else {
        const suffix = ` (and ${more} more item${more === 1 ? '' : 's'})`;
        report(new WorkflowError(error.code as ConstructorParameters<typeof WorkflowError>[0], error.location, `${error.reason}${suffix}`));
      }
    }
    this.#first.clear();
  }
}

/** ` (item 3: "episodes/c.mp3")` for messages about one item; empty when not per item. */
export function itemLabel(k: number | undefined, value: unknown): string {
  if (k === undefined) return '';
  const shown = typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value) : '';
  return ` (item ${k}${shown ? `: ${shown}` : ''})`;
}
