/**
 * The ready nodes of one step, first in first out. A step whose nodes wait for nothing is
 * not listed at all: its nodes are produced one by one from a cursor as slots free up, so a
 * 100,000-item fan-out costs nothing until it runs. Nodes made ready by finished upstream
 * nodes are kept as 32-bit indexes in a growing ring buffer.
 */
export class NodeQueue {
  private ring = new Int32Array(16);
  private head = 0;
  private count = 0;
  private cursor: number;

  /** `lazyFrom..lazyTo-1` are ready from the start (pass an empty range for none). */
  constructor(lazyFrom = 0, private readonly lazyTo = 0) {
    this.cursor = lazyFrom;
  }

  get length(): number {
    return this.count + Math.max(0, this.lazyTo - this.cursor);
  }

  push(id: number): void {
    if (this.count === this.ring.length) this.grow();
    this.ring[(this.head + this.count) % this.ring.length] = id;
    this.count++;
  }

  /** The next node, or -1. Nodes made ready later come after the lazy range. */
  shift(): number {
    if (this.cursor < this.lazyTo) return this.cursor++;
    if (this.count === 0) return -1;
    const id = this.ring[this.head]!;
    this.head = (this.head + 1) % this.ring.length;
    this.count--;
    return id;
  }

  private grow(): void {
    const next = new Int32Array(this.ring.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = this.ring[(this.head + i) % this.ring.length]!;
    this.ring = next;
    this.head = 0;
  }
}
