/**
 * "Did you mean …?" for mistyped command and flag names: the known name at the smallest edit
 * distance, if it is close enough to be a typo rather than a different word.
 */

/** Levenshtein distance (insert, delete, substitute one character). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The candidate closest to `input`, when at most a third of its characters (at least two)
 * differ; a candidate that starts with `input` (a truncated name) always qualifies.
 */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  const prefixed = candidates.filter((candidate) => candidate.startsWith(input));
  if (input.length >= 2 && prefixed.length === 1) return prefixed[0];
  const limit = Math.max(2, Math.floor(input.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(input, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  return best?.name;
}
