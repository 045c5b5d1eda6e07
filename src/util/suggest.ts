/**
 * "Did you mean" for a mistyped name: the closest candidate by edit distance (case-insensitive), when it
 * is close enough to be a plausible typo. Pure; bounded work (names longer than 64 are not compared).
 */
export function suggest(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > 64) return undefined;
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === word || candidate.length > 64) continue;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Edit distance with adjacent transpositions (optimal string alignment): "clac" is one edit from
 * "calc", the commonest typo; three rows of memory.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (before[j - 2] as number) + 1);
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

/** ` (did you mean "x"?)` or nothing: the tail of a warning about an unknown name. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = suggest(word, candidates);
  return match === undefined ? "" : `; did you mean "${match}"?`;
}
