import type { WorkflowError } from '../workflow-error.js';

/**
 * Collects the problems of a rule over many items. A problem of one item (it carries
 * `item`) is kept for every item, each with its own location and reason, so `deflow
 * validate` names every bad file and `--keep-going` knows which items to leave out. A
 * problem that is not an item's is kept once per `key`.
 */
export class ItemProblems {
  readonly #problems: WorkflowError[] = [];
  readonly #seen = new Set<string>();

  /**
   * Records a problem; `key` groups repeats of a problem that is not an item's. Pass a
   * function to build the error only when it is kept.
   */
  add(key: string, error: WorkflowError | (() => WorkflowError)): void {
    const built = typeof error === 'function' ? withoutStack(error) : error;
    if (built.item === undefined) {
      if (this.#seen.has(key)) return;
      this.#seen.add(key);
    }
    this.#problems.push(built);
  }

  /** Reports every problem kept. */
  flush(report: (error: WorkflowError) => void): void {
    for (const problem of this.#problems) report(problem);
    this.#problems.length = 0;
    this.#seen.clear();
  }
}

/** Builds an error without capturing a stack: 100,000 bad items must not cost 100,000 stack walks. */
function withoutStack(build: () => WorkflowError): WorkflowError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** ` (item 3: "episodes/c.mp3")` for messages about one item; empty when not per item. */
export function itemLabel(k: number | undefined, value: unknown): string {
  if (k === undefined) return '';
  const shown = typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value) : '';
  return ` (item ${k}${shown ? `: ${shown}` : ''})`;
}

/** The `item` option of a problem about item `k` of `step`, or nothing when it is not per item. */
export function problemItem(step: string, k: number | undefined): { item?: { step: string; index: number } } {
  return k === undefined ? {} : { item: { step, index: k } };
}
