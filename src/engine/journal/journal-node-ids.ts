/**
 * How the journal names a node: `<step>/<item key>`, where the item key is the item's stable
 * identity (its relative path, or its value), never its position. A resumed run may list
 * its items in another order, or gain new files in a glob, and still find every node it
 * already paid for. Two items of one step with the same key (a list with a repeated value)
 * are told apart by position: the first is `<step>/<key>`, a later one `<step>/<key>#<k>`.
 */
import type { GraphStep, JobGraph } from '../../workflow/index.js';
import { itemKey } from '../../workflow/index.js';

/** A node of the current graph, found by its journal name. */
export interface NamedNode {
  readonly step: GraphStep;
  readonly k: number;
  /** Global node index in the graph. */
  readonly id: number;
}

export class JournalNodeIds {
  /** Per step: each key's first item. Built on first use, since it walks every item. */
  private readonly firstOfKey = new Map<string, Map<string, number>>();

  constructor(private readonly graph: JobGraph) {}

  /** The journal name of item `k` of `step` whose item key is `key`. */
  nameOf(step: string, k: number, key: string): string {
    const first = this.keysOf(this.graph.step(step)).get(key);
    return first === undefined || first === k ? `${step}/${key}` : `${step}/${key}#${k}`;
  }

  /** The node a journal name stands for in this graph; undefined when it is not part of it. */
  find(name: string): NamedNode | undefined {
    const slash = name.indexOf('/');
    if (slash <= 0) return undefined;
    let step: GraphStep;
    try {
      step = this.graph.step(name.slice(0, slash));
    } catch {
      return undefined; // the step was removed from the workflow
    }
    const key = name.slice(slash + 1);
    const keys = this.keysOf(step);
    const k = keys.get(key);
    if (k !== undefined) return { step, k, id: step.offset + k };
    const repeat = /^(.*)#(\d+)$/s.exec(key);
    if (repeat === null) return undefined;
    const at = Number(repeat[2]);
    // Only a repeat has a `#k` name: the first item with a key is named without one.
    if (at < step.itemCount && keys.get(repeat[1]!) !== at && itemKey(step, at) === repeat[1]) return { step, k: at, id: step.offset + at };
    return undefined;
  }

  private keysOf(step: GraphStep): Map<string, number> {
    let keys = this.firstOfKey.get(step.id);
    if (keys === undefined) {
      keys = new Map();
      for (let k = 0; k < step.itemCount; k++) {
        const key = itemKey(step, k);
        if (!keys.has(key)) keys.set(key, k);
      }
      this.firstOfKey.set(step.id, keys);
    }
    return keys;
  }
}
