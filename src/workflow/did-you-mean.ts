/** Edit distance (insert, delete, substitute, each 1); stops early once past `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `name` within `maxDistance` edits (case-insensitive), or undefined.
 * Ties go to the earlier candidate so that suggestions are deterministic.
 */
export function suggestName(name: string, candidates: Iterable<string>, maxDistance = 2): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase(), maxDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean "x"?` or an empty string. */
export function didYouMean(name: string, candidates: Iterable<string>, maxDistance = 2): string {
  const suggestion = suggestName(name, candidates, maxDistance);
  return suggestion === undefined ? '' : `; did you mean "${suggestion}"?`;
}
