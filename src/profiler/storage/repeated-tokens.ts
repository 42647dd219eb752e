/** The tokens present more than once in a write batch, each once, in the order of their second occurrence. */
export function repeatedTokens(tokens: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const token of tokens) {
    if (seen.has(token)) repeated.add(token);
    seen.add(token);
  }
  return [...repeated];
}
