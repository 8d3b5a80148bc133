/**
 * Input sizes of a measured key's jobs (input-measure.ts): each job's size relative to the key's
 * reference size (the first job's, or an earlier run's), the size its estimates are for, and
 * how widely the sizes seen so far differ.
 */
export class InputScales {
  /** Reference input size of each measured key: the first job's, or an earlier run's. */
  private readonly unitSizes = new Map<string, number>();
  /** Smallest and largest relative size of each measured key's jobs so far. */
  private readonly sizeRanges = new Map<string, { min: number; max: number }>();

  /** `size` relative to `key`'s reference size (set by the first call when none is). */
  relativeSize(key: string, size: number): number {
    let unit = this.unitSizes.get(key);
    if (unit === undefined) {
      unit = size;
      this.unitSizes.set(key, unit);
    }
    const relative = size / unit;
    const range = this.sizeRanges.get(key);
    if (range === undefined) this.sizeRanges.set(key, { min: relative, max: relative });
    else {
      range.min = Math.min(range.min, relative);
      range.max = Math.max(range.max, relative);
    }
    return relative;
  }

  /** Largest over smallest size of the measured jobs of `key` seen so far (1 when none or alike). */
  sizeSpread(key: string): number {
    const range = this.sizeRanges.get(key);
    return range === undefined ? 1 : range.max / range.min;
  }

  /** The reference size of `key`, if it has one. */
  unitSize(key: string): number | undefined {
    return this.unitSizes.get(key);
  }

  /** Sets `key`'s reference size (an earlier run's). */
  setUnitSize(key: string, size: number): void {
    this.unitSizes.set(key, size);
  }
}
