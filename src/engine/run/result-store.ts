/**
 * Results of finished nodes, kept only while a downstream node may still read them: each is
 * stored with a count of the nodes that depend on it, and dropped when the last of them has
 * finished or been skipped. A chain therefore holds results in proportion to the jobs in
 * flight; only a gather, which reads every item at once, holds a whole step's results.
 */
import type { NodeResult } from '../contracts/node-result.js';

export class ResultStore {
  private readonly results = new Map<number, { result: NodeResult; readers: number }>();

  /** Stores node `id`'s result for `readers` downstream nodes (nothing is kept for none). */
  put(id: number, result: NodeResult, readers: number): void {
    if (readers > 0) this.results.set(id, { result, readers });
  }

  get(id: number): NodeResult | undefined {
    return this.results.get(id)?.result;
  }

  /** One reader of node `id` is finished with it. */
  release(id: number): void {
    const entry = this.results.get(id);
    if (entry && --entry.readers <= 0) this.results.delete(id);
  }

  /** Results held (for memory checks). */
  get size(): number {
    return this.results.size;
  }
}
