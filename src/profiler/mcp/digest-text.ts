/** Text cut to `max` characters with an ellipsis, on one line. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}\u2026` : flat;
}

/**
 * Lines joined until `budget` characters, then a last line saying how many were left out and how to see them: an
 * answer a model reads whole, never a dump.
 */
export function withinBudget(lines: string[], budget: number, more: (left: number) => string): string {
  const kept: string[] = [];
  let used = 0;
  for (const [index, line] of lines.entries()) {
    if (used + line.length + 1 > budget) {
      kept.push(more(lines.length - index));
      break;
    }
    kept.push(line);
    used += line.length + 1;
  }
  return kept.join('\n');
}

/**
 * The items whose lines fit in `budget` characters, in order, with their lines: what an answer lists, so that its
 * text and its structured content name the same items.
 */
export function fitting<T>(
  items: readonly T[],
  line: (item: T) => string,
  budget: number,
): { items: T[]; lines: string[] } {
  const kept: T[] = [];
  const lines: string[] = [];
  let used = 0;
  for (const item of items) {
    const text = line(item);
    if (used + text.length + 1 > budget) break;
    kept.push(item);
    lines.push(text);
    used += text.length + 1;
  }
  return { items: kept, lines };
}
