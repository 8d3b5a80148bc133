/**
 * The lines of an items file, kept as the text chunks they were read in plus two offsets a line:
 * a million short lines cost their bytes and 8 bytes each, not a million strings (docs/running.md,
 * "Paid means kept", has the figures). Lines are added in order and read back with `line(k)`,
 * which slices a fresh string.
 */
export class LineStore {
  private readonly chunks: string[] = [];
  /** The index of the first line of each chunk (ascending: lines are added in order). */
  private readonly chunkFirstLine: number[] = [];
  private starts = new Uint32Array(1024);
  private ends = new Uint32Array(1024);
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** Keeps `text`, the chunk the next `add`s point into. */
  addChunk(text: string): void {
    this.chunks.push(text);
    this.chunkFirstLine.push(this.count);
  }

  /** Adds the line at `start..end` of the chunk added last. */
  add(start: number, end: number): void {
    if (this.count === this.starts.length) {
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
    }
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.count++;
  }

  /** Line `k` (0-based). */
  line(k: number): string {
    if (!(Number.isInteger(k) && k >= 0 && k < this.count)) throw new RangeError(`item ${k} is outside 0..${this.count - 1}`);
    return this.chunks[this.chunkOf(k)]!.slice(this.starts[k], this.ends[k]);
  }

  /** The last chunk whose first line is at most `k`. */
  private chunkOf(k: number): number {
    let low = 0;
    let high = this.chunkFirstLine.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.chunkFirstLine[middle]! <= k) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

function grow(array: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const larger = new Uint32Array(array.length * 2);
  larger.set(array);
  return larger;
}
