/**
 * The verdict `judge` gives `key`, judged once and kept in `verdicts`, up to `bound` of them: the keys are request
 * data (header and field names, client addresses), so past the bound the map starts again rather than growing.
 */
export function remembered<K, V>(verdicts: Map<K, V>, key: K, judge: (key: K) => V, bound: number): V {
  const known = verdicts.get(key);
  if (known !== undefined) return known;
  const verdict = judge(key);
  if (verdicts.size >= bound) verdicts.clear();
  verdicts.set(key, verdict);
  return verdict;
}
